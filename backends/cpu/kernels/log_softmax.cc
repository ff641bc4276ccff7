// LogSoftmax along one dimension: x - max - log(sum(exp(x - max))), so
// large values do not overflow and tiny probabilities keep their log
// (log(softmax) would give -inf). The input is viewed as [outer, n, inner];
// with inner == 1 (the last dimension, the common case) each row is
// contiguous and vectorized with Eigen.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/softmax_rows.h"

namespace switchyard {
namespace cpu {
namespace {

using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;

void LogSoftmaxRow(const float* in, float* out, int64_t base, int64_t n,
                   int64_t inner) {
  if (inner == 1) {
    Eigen::Map<const Vector> x(in + base, n);
    Eigen::Map<Vector> y(out + base, n);
    const float max_value = x.maxCoeff<Eigen::PropagateNaN>();
    y = x - max_value;
    const float log_sum = std::log((y.exp()).sum());
    y -= log_sum;
    return;
  }
  float max_value = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const float v = in[base + i * inner];
    max_value = (v > max_value || v != v) ? v : max_value;
  }
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += std::exp(in[base + i * inner] - max_value);
  }
  const float shift = max_value + std::log(sum);
  for (int64_t i = 0; i < n; ++i) {
    out[base + i * inner] = in[base + i * inner] - shift;
  }
}

SY_REGISTER_KERNEL(CpuKernels(), "log_softmax", DType::kFloat32,
                   &MakeSoftmaxRowsKernel<&LogSoftmaxRow>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
