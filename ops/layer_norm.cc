// layer_norm: layer normalization, as ONNX LayerNormalization (opset 17,
// its Y output) and torch.nn.functional.layer_norm: over the dimensions
// axis..rank-1 of each slice,
//   y = (x - mean) / sqrt(var + epsilon) * scale + bias
// with the biased variance (mean of squared deviations).
//   operands:   input (rank >= 1), scale and bias (optional), each of shape
//               input[axis:]
//   attributes: axis = -1, epsilon = 1e-5 (ops/norm_attrs.h)
//   output:     input's shape and dtype
// ONNX's optional Mean and InvStdDev outputs are not produced (an importer
// builds them from reduce_mean and elementwise ops when a model reads them).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> LayerNormShape(const LayerNormAttrs& a,
                                     absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  if (input.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have rank >= 1, got ", input.ToString()));
  }
  SY_ASSIGN_OR_RETURN(int axis,
                      ops_internal::WrapDim(a.axis, input.rank(), "axis"));
  const Shape normalized(
      std::vector<int64_t>(input.dims().begin() + axis, input.dims().end()));
  // The schema's operand names, for messages.
  constexpr const char* names[] = {"input", "scale", "bias"};
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i] != normalized) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " must be ", normalized.ToString(), " (input ",
                       input.ToString(), " from axis ", axis, " on), got ",
                       operands[i].ToString()));
    }
  }
  return input;
}

// Per element: add for the mean, subtract, square and add for the
// variance, subtract, multiply, multiply-add.
int64_t LayerNormFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                       const Shape& output) {
  return ops_internal::SaturatingProduct({8, output.num_elements()});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"layer_norm", {{"input"}, {"scale"}, {"bias", /*optional=*/true}},
     ops_internal::FloatingDTypes()},
    &LayerNormShape, &LayerNormFlops));

}  // namespace
}  // namespace switchyard
