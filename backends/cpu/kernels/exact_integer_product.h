#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_EXACT_INTEGER_PRODUCT_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_EXACT_INTEGER_PRODUCT_H_

// The int32 product of two matrices of 8-bit values less their zero points
// (each within [-255, 255]) through float32 GEMMs, which Eigen vectorizes
// and its integer GEMM does not (ResNet-50's QLinearConv ran 7x slower).
// The depth is cut into blocks of kExactDepth: a block's sums are integers
// below 256 * 255 * 255 < 2^24, so float32 holds them exactly, whatever the
// order or FMA; the blocks are added in int32, wrapping as ONNX Runtime's
// int32 accumulators do.

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"

namespace switchyard {
namespace cpu {

using FloatRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using IntRowsMap =
    Eigen::Map<Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
               Eigen::OuterStride<>>;

constexpr int64_t kExactDepth = 256;

// out = lhs * rhs, lhs [rows, depth] and rhs [depth, cols] holding whole
// numbers within [-255, 255]; `partial` is scratch.
template <typename Lhs, typename Rhs>
void ExactIntegerProduct(const Lhs& lhs, const Rhs& rhs, IntRowsMap out, FloatRows& partial) {
  const int64_t depth = lhs.cols();
  if (depth == 0) {
    out.setZero();
    return;
  }
  partial.resize(lhs.rows(), rhs.cols());
  const int64_t cols = out.cols();
  for (int64_t k0 = 0; k0 < depth; k0 += kExactDepth) {
    const int64_t k = std::min(kExactDepth, depth - k0);
    partial.noalias() = lhs.middleCols(k0, k) * rhs.middleRows(k0, k);
    for (int64_t i = 0; i < out.rows(); ++i) {
      const float* from = partial.data() + i * cols;
      int32_t* to = &out(i, 0);
      if (k0 == 0) {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) to[j] = static_cast<int32_t>(from[j]);
      } else {
        // Wrapping as int32 sums do (unsigned arithmetic).
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) {
          to[j] = static_cast<int32_t>(static_cast<uint32_t>(to[j]) +
                                       static_cast<uint32_t>(static_cast<int32_t>(from[j])));
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_EXACT_INTEGER_PRODUCT_H_
