// Pooling device code (pool2d.cuh): MaxPool2d, AvgPool2d and
// AdaptiveAvgPool2d over NCHW planes, one thread per output element. The
// windows are ops/pool_geometry.h's, called on the device, so they are the
// CPU backend's to the element: padded positions never win a max, NaN
// propagates, average divisors follow AvgPoolSpan, adaptive windows are
// [AdaptiveStart, AdaptiveEnd).

#include "backends/cuda/kernels/pool2d.cuh"

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

// Output element `index` of the planes: its plane's input, and its row and
// column in the output.
struct PoolOutput {
  const float* plane;
  int64_t oh, ow;
};

__device__ PoolOutput OutputAt(const float* in, const Pool2dPlanes& s,
                               int64_t index) {
  PoolOutput o;
  o.ow = index % s.wo;
  o.oh = (index / s.wo) % s.ho;
  o.plane = in + (index / (s.wo * s.ho)) * s.h * s.w;
  return o;
}

__host__ __device__ int64_t OutputCount(const Pool2dPlanes& s) {
  return s.planes * s.ho * s.wo;
}

__global__ void MaxPool2d(const float* __restrict__ in, float* __restrict__ out,
                          MaxPool2dParams p) {
  const Pool2dPlanes& s = p.size;
  SY_GRID_STRIDE_LOOP(index, OutputCount(s)) {
    const PoolOutput o = OutputAt(in, s, index);
    const int64_t h0 = PoolWindowStart(o.oh, p.stride_h, p.pad_h);
    const int64_t w0 = PoolWindowStart(o.ow, p.stride_w, p.pad_w);
    float best = -INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < p.kernel_h; ++i) {
      const int64_t ih = h0 + i * p.dilation_h;
      if (ih < 0 || ih >= s.h) continue;
      for (int64_t j = 0; j < p.kernel_w; ++j) {
        const int64_t iw = w0 + j * p.dilation_w;
        if (iw < 0 || iw >= s.w) continue;
        const float v = o.plane[ih * s.w + iw];
        nan |= isnan(v);
        best = v > best ? v : best;
      }
    }
    out[index] = nan ? NAN : best;
  }
}

// The sum of rows [r0, r1) x columns [c0, c1) of a plane (row length w),
// divided by `count`.
__device__ float WindowMean(const float* plane, int64_t w, int64_t r0,
                            int64_t r1, int64_t c0, int64_t c1, int64_t count) {
  float sum = 0.0f;
  for (int64_t y = r0; y < r1; ++y) {
    for (int64_t x = c0; x < c1; ++x) sum += plane[y * w + x];
  }
  return sum / static_cast<float>(count);
}

__global__ void AvgPool2d(const float* __restrict__ in, float* __restrict__ out,
                          AvgPool2dParams p) {
  const Pool2dPlanes& s = p.size;
  SY_GRID_STRIDE_LOOP(index, OutputCount(s)) {
    const PoolOutput o = OutputAt(in, s, index);
    const PoolSpan r = AvgPoolSpan(o.oh, s.h, p.kernel_h, p.stride_h,
                                   p.pad_top, p.pad_bottom, p.count_include_pad);
    const PoolSpan c = AvgPoolSpan(o.ow, s.w, p.kernel_w, p.stride_w,
                                   p.pad_left, p.pad_right, p.count_include_pad);
    out[index] = WindowMean(o.plane, s.w, r.begin, r.end, c.begin, c.end,
                            r.extent * c.extent);
  }
}

__global__ void AdaptiveAvgPool2d(const float* __restrict__ in,
                                  float* __restrict__ out,
                                  AdaptiveAvgPool2dParams p) {
  const Pool2dPlanes& s = p.size;
  SY_GRID_STRIDE_LOOP(index, OutputCount(s)) {
    const PoolOutput o = OutputAt(in, s, index);
    const int64_t h0 = AdaptiveStart(o.oh, s.h, s.ho);
    const int64_t h1 = AdaptiveEnd(o.oh, s.h, s.ho);
    const int64_t w0 = AdaptiveStart(o.ow, s.w, s.wo);
    const int64_t w1 = AdaptiveEnd(o.ow, s.w, s.wo);
    out[index] =
        WindowMean(o.plane, s.w, h0, h1, w0, w1, (h1 - h0) * (w1 - w0));
  }
}

// One thread per output element of `kernel` over params.size.
template <typename Params>
cudaError_t LaunchPerOutput(void (*kernel)(const float*, float*, Params),
                            const float* in, float* out, const Params& params,
                            cudaStream_t stream) {
  const int64_t total = OutputCount(params.size);
  if (total <= 0) return cudaSuccess;
  kernel<<<Blocks(total), kThreads, 0, stream>>>(in, out, params);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchMaxPool2d(const float* in, float* out,
                            const MaxPool2dParams& params, cudaStream_t stream) {
  return LaunchPerOutput(&MaxPool2d, in, out, params, stream);
}

cudaError_t LaunchAvgPool2d(const float* in, float* out,
                            const AvgPool2dParams& params, cudaStream_t stream) {
  return LaunchPerOutput(&AvgPool2d, in, out, params, stream);
}

cudaError_t LaunchAdaptiveAvgPool2d(const float* in, float* out,
                                    const AdaptiveAvgPool2dParams& params,
                                    cudaStream_t stream) {
  return LaunchPerOutput(&AdaptiveAvgPool2d, in, out, params, stream);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
