// BatchNorm at inference: a per-channel scale and shift, computed once per
// run from the four parameter vectors (in double, so the folded form loses
// nothing to the reference's (x - mean) / sqrt(var + eps) * w + b beyond
// one rounding of each), then one fused multiply-add per element.

#include "backends/cuda/kernels/batch_norm.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void ScaleShift(const float* __restrict__ weight,
                           const float* __restrict__ bias, const float* __restrict__ mean,
                           const float* __restrict__ var, double epsilon,
                           float* __restrict__ scale_shift, int64_t channels) {
  SY_GRID_STRIDE_LOOP(c, channels) {
    const double scale =
        static_cast<double>(weight[c]) / sqrt(static_cast<double>(var[c]) + epsilon);
    scale_shift[c] = static_cast<float>(scale);
    scale_shift[channels + c] =
        static_cast<float>(static_cast<double>(bias[c]) - mean[c] * scale);
  }
}

__global__ void ChannelAffine(const float* __restrict__ in,
                              const float* __restrict__ scale_shift,
                              float* __restrict__ out, int64_t n, int64_t channels,
                              int64_t inner) {
  SY_GRID_STRIDE_LOOP(i, n) {
    const int64_t c = (i / inner) % channels;
    out[i] = fmaf(in[i], scale_shift[c], scale_shift[channels + c]);
  }
}

}  // namespace

cudaError_t LaunchBatchNorm(const float* in, const float* weight, const float* bias,
                            const float* mean, const float* var, double epsilon,
                            float* scale_shift, float* out, int64_t batch,
                            int64_t channels, int64_t inner, cudaStream_t stream) {
  const int64_t n = batch * channels * inner;
  if (n <= 0) return cudaSuccess;
  ScaleShift<<<Blocks(channels), kThreads, 0, stream>>>(weight, bias, mean, var, epsilon,
                                                        scale_shift, channels);
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) return launched;
  ChannelAffine<<<Blocks(n), kThreads, 0, stream>>>(in, scale_shift, out, n, channels,
                                                    inner);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
