// matmul: the matrix product with numpy.matmul's (and ONNX MatMul's) rules:
// a 1-D a is a row and a 1-D b a column (the added dimension is dropped
// from the output); the dimensions before the last two are batch
// dimensions and broadcast.
//   operands: a [..., M, K] or [K], b [..., K, N] or [K]
//   output:   [broadcast batch..., M, N] (ops/matmul_geometry.h)

#include <memory>
#include <string>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/matmul_geometry.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> MatmulShape(const NoAttrs& /*attrs*/,
                                  absl::Span<const Shape> operands) {
  SY_ASSIGN_OR_RETURN(MatmulGeometry g,
                      MatmulGeometryOf(operands[0], operands[1]));
  return g.output;
}

// A multiply-add is 2.
int64_t MatmulFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                    const Shape& output) {
  if (operands.size() < 2) return 0;
  absl::StatusOr<MatmulGeometry> g = MatmulGeometryOf(operands[0], operands[1]);
  if (!g.ok()) return 0;
  return ops_internal::SaturatingProduct({2, g->batch_count, g->m, g->k, g->n});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"matmul", {{"a"}, {"b"}}, ops_internal::FloatingDTypes()}, &MatmulShape,
    &MatmulFlops));

}  // namespace
}  // namespace switchyard
