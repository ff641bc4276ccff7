// concat: joins its operands along one dim, as ONNX Concat.
//   operands:   inputs... (one or more, the same dtype and rank >= 1, the
//               same shape except along axis)
//   attributes: axis (int, required; negative counts from the end;
//               ops/shape_attrs.h)
//   output:     the operands' shape with dim axis the sum of theirs

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ConcatShape(const ConcatAttrs& a,
                                  absl::Span<const Shape> operands) {
  const Shape& first = operands[0];
  if (first.rank() == 0) {
    return absl::InvalidArgumentError(
        "concat takes operands of rank >= 1, got a scalar (operand 0); "
        "reshape it to [1] first");
  }
  SY_ASSIGN_OR_RETURN(int axis,
                      ops_internal::WrapDim(a.axis, first.rank(), "axis"));
  std::vector<int64_t> dims = first.dims();
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& s = operands[k];
    bool same = s.rank() == first.rank();
    for (int d = 0; same && d < s.rank(); ++d) {
      same = d == axis || s.dim(d) == first.dim(d);
    }
    if (!same) {
      return absl::InvalidArgumentError(
          absl::StrCat("concat operand ", k, " ", s.ToString(),
                       " must have the shape of operand 0 ", first.ToString(),
                       " except along axis ", axis));
    }
    if (__builtin_add_overflow(dims[axis], s.dim(axis), &dims[axis])) {
      return absl::InvalidArgumentError(
          "concat: the output's length along axis overflows int64");
    }
  }
  return Shape(std::move(dims));
}

// Any dtype: it only moves elements (one dtype for all).
static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"concat", {{"inputs", /*optional=*/false, /*variadic=*/true}}, {}},
    &ConcatShape));

}  // namespace
}  // namespace switchyard
