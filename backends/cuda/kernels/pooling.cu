// Pooling device code: MaxPool2d and AdaptiveAvgPool2d over NCHW planes, one
// thread per output element. Window arithmetic and edge rules are the CPU
// backend's (ops/pool_geometry.h): padded positions never win a max, NaN
// propagates, adaptive windows are [floor(i*in/out), ceil((i+1)*in/out)).

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/grid.h"
#include "backends/cuda/kernels/launch.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void MaxPool2d(const float* __restrict__ in, float* __restrict__ out,
                          MaxPool2dParams p) {
  const int64_t total = p.planes * p.ho * p.wo;
  SY_GRID_STRIDE_LOOP(index, total) {
    const int64_t ow = index % p.wo;
    const int64_t oh = (index / p.wo) % p.ho;
    const int64_t plane = index / (p.wo * p.ho);
    const float* src = in + plane * p.h * p.w;
    const int64_t h0 = oh * p.stride_h - p.pad_h;
    const int64_t w0 = ow * p.stride_w - p.pad_w;
    float best = -INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < p.kernel_h; ++i) {
      const int64_t ih = h0 + i * p.dilation_h;
      if (ih < 0 || ih >= p.h) continue;
      for (int64_t j = 0; j < p.kernel_w; ++j) {
        const int64_t iw = w0 + j * p.dilation_w;
        if (iw < 0 || iw >= p.w) continue;
        const float v = src[ih * p.w + iw];
        nan |= isnan(v);
        best = v > best ? v : best;
      }
    }
    out[index] = nan ? NAN : best;
  }
}

__global__ void AdaptiveAvgPool2d(const float* __restrict__ in,
                                  float* __restrict__ out, int64_t planes,
                                  int64_t h, int64_t w, int64_t ho, int64_t wo) {
  const int64_t total = planes * ho * wo;
  SY_GRID_STRIDE_LOOP(index, total) {
    const int64_t j = index % wo;
    const int64_t i = (index / wo) % ho;
    const int64_t plane = index / (wo * ho);
    const float* src = in + plane * h * w;
    const int64_t h0 = (i * h) / ho, h1 = ((i + 1) * h + ho - 1) / ho;
    const int64_t w0 = (j * w) / wo, w1 = ((j + 1) * w + wo - 1) / wo;
    float sum = 0.0f;
    for (int64_t y = h0; y < h1; ++y) {
      for (int64_t x = w0; x < w1; ++x) sum += src[y * w + x];
    }
    out[index] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
  }
}

}  // namespace

cudaError_t LaunchMaxPool2d(const float* in, float* out,
                            const MaxPool2dParams& params, cudaStream_t stream) {
  const int64_t total = params.planes * params.ho * params.wo;
  if (total <= 0) return cudaSuccess;
  MaxPool2d<<<Blocks(total), kThreads, 0, stream>>>(in, out, params);
  return cudaGetLastError();
}

cudaError_t LaunchAdaptiveAvgPool2d(const float* in, float* out,
                                    int64_t planes, int64_t h, int64_t w,
                                    int64_t ho, int64_t wo,
                                    cudaStream_t stream) {
  const int64_t total = planes * ho * wo;
  if (total <= 0) return cudaSuccess;
  AdaptiveAvgPool2d<<<Blocks(total), kThreads, 0, stream>>>(in, out, planes, h,
                                                             w, ho, wo);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
