// Softmax along one dimension, shifted by the maximum for stability.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "Eigen/Core"

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/softmax_rows.h"

namespace switchyard {
namespace cpu {
namespace {

void SoftmaxRow(const float* in, float* out, int64_t base, int64_t n,
                int64_t inner) {
  if (inner == 1) {
    // A contiguous row (softmax over the last dim, as attention's): Eigen's
    // vectorised exp, several times faster than std::exp per element.
    Eigen::Map<const Eigen::ArrayXf> x(in + base, n);
    Eigen::Map<Eigen::ArrayXf> y(out + base, n);
    // NaN propagates to the whole row either way: exp(NaN - max) is NaN,
    // and so is the sum.
    y = (x - x.maxCoeff()).exp();
    y /= y.sum();
    return;
  }
  float max_value = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    max_value = std::max(max_value, in[base + i * inner]);
  }
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float e = std::exp(in[base + i * inner] - max_value);
    out[base + i * inner] = e;
    sum += e;
  }
  for (int64_t i = 0; i < n; ++i) out[base + i * inner] /= sum;
}

SY_REGISTER_KERNEL(CpuKernels(), "softmax", DType::kFloat32,
                   &MakeSoftmaxRowsKernel<&SoftmaxRow>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
