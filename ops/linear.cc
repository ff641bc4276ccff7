// linear: y = x W^T + b over the last dimension, as torch.nn.functional.linear.
//   operands: input [..., in], weight [out, in], bias [out] (optional)
//   output:   [..., out]

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

int64_t LeadingRows(const Shape& input) {
  int64_t rows = 1;
  for (int i = 0; i + 1 < input.rank(); ++i) rows *= input.dim(i);
  return rows;
}

absl::StatusOr<Shape> LinearShape(const NoAttrs& /*attrs*/,
                                  absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const Shape& weight = operands[1];
  if (input.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have rank >= 1 ([..., in_features]), got ",
                     input.ToString()));
  }
  SY_RETURN_IF_ERROR(ops_internal::CheckRank(weight, "weight", 2,
                                             "(out_features, in_features)"));
  const int64_t in = input.dim(input.rank() - 1);
  const int64_t out = weight.dim(0);
  if (weight.dim(1) != in) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", weight.ToString(), " expects ", weight.dim(1),
                     " input features but input ", input.ToString(), " has ",
                     in, " in its last dimension"));
  }
  if (operands.size() > 2 && operands[2] != Shape({out})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bias must be [", out, "] (one value per output feature of weight ",
        weight.ToString(), "), got ", operands[2].ToString()));
  }
  std::vector<int64_t> dims = input.dims();
  dims.back() = out;
  return Shape(std::move(dims));
}

// A multiply-add is 2; each bias add is 1.
int64_t LinearFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                    const Shape& output) {
  if (operands.size() < 2 || operands[0].rank() < 1 ||
      operands[1].rank() != 2) {
    return 0;
  }
  const int64_t rows = LeadingRows(operands[0]);
  const int64_t in = operands[1].dim(1);
  const int64_t out = operands[1].dim(0);
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct({2, rows, in, out}),
       operands.size() > 2 ? ops_internal::SaturatingProduct({rows, out}) : 0});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"linear", {{"input"}, {"weight"}, {"bias", /*optional=*/true}},
     ops_internal::FloatingDTypes()},
    &LinearShape, &LinearFlops));

}  // namespace
}  // namespace switchyard
