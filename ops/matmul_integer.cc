// matmul_integer: the int32 product of two 8-bit matrices less their zero
// points, as ONNX MatMulInteger:
//   y[..., i, j] = sum_k (a[..., i, k] - a_zp[i]) * (b[..., k, j] - b_zp[j])
//   operands: a [..., M, K] or [K] (uint8/int8), b [..., K, N] or [K]
//             (uint8/int8), a_zero_point (a's dtype: scalar or [M]),
//             b_zero_point (b's dtype: scalar or [N])
//   output:   int32, matmul's shape (ops/matmul_geometry.h)

#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/integer_operands.h"
#include "ops/matmul_geometry.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> MatmulIntegerTypes(
    const NoAttrs& /*attrs*/, absl::Span<const TensorType> operands) {
  SY_ASSIGN_OR_RETURN(MatmulGeometry g,
                      MatmulGeometryOf(operands[0].shape, operands[1].shape));
  const bool a_matrix = operands[0].shape.rank() >= 2;
  const bool b_matrix = operands[1].shape.rank() >= 2;
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[0], operands[2], "a", "a_zero_point", "matmul_integer",
      a_matrix ? g.m : 0));
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[1], operands[3], "b", "b_zero_point", "matmul_integer",
      b_matrix ? g.n : 0));
  return std::vector<TensorType>{{g.output, DType::kInt32}};
}

// A multiply-add is 2, as for matmul.
int64_t MatmulIntegerFlops(const AttrMap& /*attrs*/,
                           absl::Span<const Shape> operands,
                           const Shape& /*output*/) {
  if (operands.size() < 2) return 0;
  absl::StatusOr<MatmulGeometry> g = MatmulGeometryOf(operands[0], operands[1]);
  if (!g.ok()) return 0;
  return ops_internal::SaturatingProduct({2, g->batch_count, g->m, g->k, g->n});
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"matmul_integer",
     {{"a"}, {"b"}, {"a_zero_point"}, {"b_zero_point"}},
     {DType::kUInt8, DType::kInt8}},
    &MatmulIntegerTypes, &MatmulIntegerFlops));

}  // namespace
}  // namespace switchyard
