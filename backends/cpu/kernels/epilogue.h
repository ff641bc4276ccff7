#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_

#include <cstdint>

#include "Eigen/Core"

namespace switchyard {
namespace cpu {

// What the conv2d and linear kernels apply to each output block right after
// its GEMM, while the block is still in cache: the bias, then the
// activation of a fused partition (cpu_fusion.cc). kNone is the plain op.
enum class Activation { kNone, kRelu };

// One output row of `n` values sharing one bias (conv2d: a channel's row of
// pixels): row = act(row + *bias). `bias` may be null (no bias).
inline void FinishRow(float* row, int64_t n, const float* bias,
                      Activation activation) {
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  if (activation == Activation::kRelu) {
    // The same expression as the relu kernel: fused and unfused agree.
    if (bias != nullptr) {
      r = (r + *bias).max(0.0f);
    } else {
      r = r.max(0.0f);
    }
  } else if (bias != nullptr) {
    r += *bias;
  }
}

// One output row of `n` values with a bias per value (linear: one sample's
// features): row[j] = act(row[j] + bias[j]). `bias` may be null.
inline void FinishRowPerColumn(float* row, int64_t n, const float* bias,
                               Activation activation) {
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  if (activation == Activation::kRelu) {
    if (bias != nullptr) {
      r = (r + Eigen::Map<const Eigen::ArrayXf>(bias, n)).max(0.0f);
    } else {
      r = r.max(0.0f);
    }
  } else if (bias != nullptr) {
    r += Eigen::Map<const Eigen::ArrayXf>(bias, n);
  }
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_
