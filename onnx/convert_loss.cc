// ONNX's loss functions, as compositions of Switchyard's ops (they appear in
// exported training graphs and in ONNX's node tests; at inference they are
// plain arithmetic):
//   NegativeLogLikelihoodLoss: -input[n, target[n, d...], d...] * weight[target],
//     ignore_index targets contributing 0, then reduction none, sum, or mean
//     (the sum over the sum of the weights taken);
//   SoftmaxCrossEntropyLoss: the same on log_softmax(scores) over axis 1,
//     with that log-probability as the optional second output.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

struct LossInputs {
  Val input;    // [N, C, d...] of log-probabilities
  Val target;   // [N, d...] class indices
  std::optional<Val> weight;  // [C]
};

// The loss of `in` as NegativeLogLikelihoodLoss defines it, with the node's
// reduction and ignore_index attributes.
absl::StatusOr<Val> NegativeLogLikelihood(NodeContext& ctx, const LossInputs& in) {
  SY_ASSIGN_OR_RETURN(std::string reduction, ctx.String("reduction", "mean"));
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'reduction' is '", reduction, "'; it takes 'none', 'sum' or 'mean'"));
  }
  const Shape x = ctx.Type(in.input).shape;
  const Shape t = ctx.Type(in.target).shape;
  if (x.rank() < 2 || t.rank() != x.rank() - 1 || t.dim(0) != x.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be [N, C, d...] and target [N, d...]; got ", x.ToString(), " and ",
        t.ToString()));
  }
  for (int d = 1; d < t.rank(); ++d) {
    if (t.dim(d) != x.dim(d + 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target ", t.ToString(), " does not match input ", x.ToString(),
          " outside the class axis"));
    }
  }
  const DType dtype = ctx.Type(in.input).dtype;
  Val target = in.target;
  if (ctx.Type(target).dtype != DType::kInt64) {
    SY_ASSIGN_OR_RETURN(target, Op(ctx, "cast", {target}, Attrs({{"to", "int64"}})));
  }
  // Ignored targets read class 0 and weigh 0; ignore_index may be any
  // value, a class or not.
  std::optional<Val> ignored;
  if (ctx.HasAttr("ignore_index")) {
    SY_ASSIGN_OR_RETURN(int64_t ignore_index, ctx.Int("ignore_index", 0));
    SY_ASSIGN_OR_RETURN(ignored,
                        Op(ctx, "equal", {target, Scalar(ctx, ignore_index, DType::kInt64)}));
    SY_ASSIGN_OR_RETURN(target,
                        Op(ctx, "where", {*ignored, Scalar(ctx, 0, DType::kInt64), target}));
  }
  std::vector<int64_t> with_class_axis = t.dims();
  with_class_axis.insert(with_class_axis.begin() + 1, 1);
  SY_ASSIGN_OR_RETURN(Val index, Reshape(ctx, target, with_class_axis));
  SY_ASSIGN_OR_RETURN(Val picked, Op(ctx, "gather_elements", {in.input, index},
                                     Attrs({{"axis", int64_t{1}}})));
  SY_ASSIGN_OR_RETURN(picked, Reshape(ctx, picked, t.dims()));
  SY_ASSIGN_OR_RETURN(Val loss, Op(ctx, "neg", {picked}));
  std::optional<Val> weight;  // per element; none means 1
  if (in.weight.has_value()) {
    SY_ASSIGN_OR_RETURN(weight, Op(ctx, "gather", {*in.weight, target},
                                   Attrs({{"axis", int64_t{0}}})));
  }
  if (ignored.has_value()) {
    const Val one = Scalar(ctx, 1, dtype);
    SY_ASSIGN_OR_RETURN(weight, Op(ctx, "where", {*ignored, Scalar(ctx, 0, dtype),
                                                  weight.has_value() ? *weight : one}));
  }
  if (weight.has_value()) {
    SY_ASSIGN_OR_RETURN(loss, Op(ctx, "mul", {loss, *weight}));
  }
  if (reduction == "none") return loss;
  const AttrMap all = Attrs({{"axes", std::vector<int64_t>{}}, {"keepdims", false}});
  SY_ASSIGN_OR_RETURN(Val sum, Op(ctx, "reduce_sum", {loss}, all));
  if (reduction == "sum") return sum;
  if (!weight.has_value()) return Op(ctx, "reduce_mean", {loss}, all);
  SY_ASSIGN_OR_RETURN(Val total_weight, Op(ctx, "reduce_sum", {*weight}, all));
  return Op(ctx, "div", {sum, total_weight});
}

absl::Status ConvertNegativeLogLikelihoodLoss(NodeContext& ctx) {
  LossInputs in{ctx.In(0), ctx.In(1), std::nullopt};
  if (ctx.HasInput(2)) in.weight = ctx.In(2);
  SY_ASSIGN_OR_RETURN(Val loss, NegativeLogLikelihood(ctx, in));
  return ctx.SetOutput(0, loss);
}

absl::Status ConvertSoftmaxCrossEntropyLoss(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val log_prob, Op(ctx, "log_softmax", {ctx.In(0)},
                                       Attrs({{"dim", int64_t{1}}})));
  LossInputs in{log_prob, ctx.In(1), std::nullopt};
  if (ctx.HasInput(2)) in.weight = ctx.In(2);
  SY_ASSIGN_OR_RETURN(Val loss, NegativeLogLikelihood(ctx, in));
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, loss));
  if (ctx.num_outputs() > 1) SY_RETURN_IF_ERROR(ctx.SetOutput(1, log_prob));
  return absl::OkStatus();
}

SY_REGISTER_ONNX_CONVERTER("NegativeLogLikelihoodLoss", ConvertNegativeLogLikelihoodLoss, 2);
SY_REGISTER_ONNX_CONVERTER("SoftmaxCrossEntropyLoss", ConvertSoftmaxCrossEntropyLoss, 2);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
