// trilu: the upper or lower triangle of the last two dims, as ONNX Trilu.
//   operands:   input (rank >= 2, any dtype)
//   attributes: upper = true, k = 0 (ops/trilu_attrs.h)
//   output:     input's shape and dtype; element (..., i, j) is kept when
//               j - i >= k (upper) or j - i <= k (lower), else zero

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "ops/trilu_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> TriluShape(const TriluAttrs&, absl::Span<const Shape> operands) {
  if (operands[0].rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", operands[0].ToString(), " has rank ", operands[0].rank(),
        "; trilu takes matrices (rank >= 2)"));
  }
  return operands[0];
}

static const bool kRegistered = RegisterOp(
    ops_internal::ShapeOp({"trilu", {{"input"}}, {}}, &TriluShape));

}  // namespace
}  // namespace switchyard
