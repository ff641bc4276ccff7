// cumsum: running sums along one dim, as ONNX CumSum.
//   operands:   input (rank >= 1; float32, float64, int64, int32)
//   attributes: axis = 0, exclusive = false, reverse = false
//               (ops/cumsum_attrs.h)
//   output:     input's shape and dtype; y[..., i, ...] = the sum of x[...,
//               k, ...] for k <= i (k < i exclusive; k >= i, k > i reversed)
// Integers wrap on overflow.

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/cumsum_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> CumSumShape(const CumSumAttrs& a,
                                  absl::Span<const Shape> operands) {
  const Shape& in = operands[0];
  if (in.rank() == 0) {
    return absl::InvalidArgumentError("input is a scalar; cumsum takes rank >= 1");
  }
  SY_RETURN_IF_ERROR(ops_internal::WrapDim(a.axis, in.rank(), "axis").status());
  return in;
}

// One addition per element.
int64_t CumSumFlops(const AttrMap&, absl::Span<const Shape>, const Shape& output) {
  return output.num_elements();
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"cumsum",
     {{"input"}},
     {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32}},
    &CumSumShape, &CumSumFlops));

}  // namespace
}  // namespace switchyard
