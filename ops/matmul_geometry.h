#ifndef SWITCHYARD_OPS_MATMUL_GEOMETRY_H_
#define SWITCHYARD_OPS_MATMUL_GEOMETRY_H_

// The shape arithmetic of matmul (numpy.matmul: 1-D operands promoted to a
// row or column, batch dimensions broadcast) and gemm (c broadcast to
// [M, N]), shared by shape inference and every backend's kernels.
//
//   absl::StatusOr<MatmulGeometry> g =
//       MatmulGeometryOf(Shape({2, 1, 3, 4}), Shape({5, 4, 6}));
//   g->output == Shape({2, 5, 3, 6}); g->batch == {2, 5}; g->m == 3
//   g->a_stride == {1, 0}; g->b_stride == {0, 1}   // in matrices
//   // output matrix 7 is batch (1, 2): a's matrix 1, b's matrix 2
//   g->AMatrix(7) == 1; g->BMatrix(7) == 2

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shape.h"

namespace switchyard {

struct MatmulGeometry {
  int64_t m = 1, k = 1, n = 1;
  // The broadcast batch dimensions, and for each, the step in matrices of a
  // and of b (0 where that operand has length 1 or lacks the dimension).
  std::vector<int64_t> batch;
  std::vector<int64_t> a_stride, b_stride;
  int64_t batch_count = 1;  // product of `batch`
  Shape output;

  // The matrix of a (b) that output matrix `index` (< batch_count) reads:
  // a's data starts at AMatrix(index) * m * k.
  int64_t AMatrix(int64_t index) const;
  int64_t BMatrix(int64_t index) const;
  // True when every output matrix reads the same matrix of b: the batch then
  // folds into the rows of one [batch_count * m, k] x [k, n] product.
  bool BIsShared() const;
};

// InvalidArgument for a rank-0 operand, inner dimensions that differ, or
// batch dimensions that do not broadcast; each names both shapes.
absl::StatusOr<MatmulGeometry> MatmulGeometryOf(const Shape& a, const Shape& b);

// Where gemm reads c[i, j] of its broadcast [M, N] view: at
// i * row_step + j * col_step. c may be [], [1], [N], [1, 1], [1, N],
// [M, 1] or [M, N] (ONNX's unidirectional broadcast); anything else is
// InvalidArgument naming c's shape and [M, N].
struct GemmBiasSteps {
  int64_t row_step = 0, col_step = 0;
};
absl::StatusOr<GemmBiasSteps> GemmBiasStepsOf(const Shape& c, int64_t m,
                                              int64_t n);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_MATMUL_GEOMETRY_H_
