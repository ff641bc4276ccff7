// AvgPool2d device code (ONNX AveragePool over NCHW), one thread per output
// element. The window arithmetic is ops/pool_geometry.h's AvgPoolSpan,
// written out for the device: rows [oh*sh - top, + kh) clipped to the
// input; the divisor counts the input elements, or with count_include_pad
// the window clipped to the padded input [-top, h + bottom).

#include <cstdint>

#include "backends/cuda/kernels/grid.h"
#include "backends/cuda/kernels/nn_family_launch.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

struct Span {
  int64_t begin, end, extent;
};

__device__ Span WindowSpan(int64_t index, int64_t in, int64_t kernel,
                           int64_t stride, int64_t pad_begin, int64_t pad_end,
                           bool count_include_pad) {
  const int64_t start = index * stride - pad_begin;
  const int64_t stop = start + kernel;
  Span s;
  s.begin = start < 0 ? 0 : start;
  s.end = stop > in ? in : stop;
  s.extent = count_include_pad
                 ? (stop > in + pad_end ? in + pad_end : stop) - start
                 : s.end - s.begin;
  return s;
}

__global__ void AvgPool2d(const float* __restrict__ in, float* __restrict__ out,
                          AvgPool2dParams p) {
  const int64_t total = p.planes * p.ho * p.wo;
  SY_GRID_STRIDE_LOOP(index, total) {
    const int64_t ow = index % p.wo;
    const int64_t oh = (index / p.wo) % p.ho;
    const int64_t plane = index / (p.wo * p.ho);
    const float* src = in + plane * p.h * p.w;
    const Span r = WindowSpan(oh, p.h, p.kernel_h, p.stride_h, p.pad_top,
                              p.pad_bottom, p.count_include_pad);
    const Span c = WindowSpan(ow, p.w, p.kernel_w, p.stride_w, p.pad_left,
                              p.pad_right, p.count_include_pad);
    float sum = 0.0f;
    for (int64_t y = r.begin; y < r.end; ++y) {
      for (int64_t x = c.begin; x < c.end; ++x) sum += src[y * p.w + x];
    }
    out[index] = sum / static_cast<float>(r.extent * c.extent);
  }
}

}  // namespace

cudaError_t LaunchAvgPool2d(const float* in, float* out,
                            const AvgPool2dParams& params,
                            cudaStream_t stream) {
  const int64_t total = params.planes * params.ho * params.wo;
  if (total <= 0) return cudaSuccess;
  AvgPool2d<<<Blocks(total), kThreads, 0, stream>>>(in, out, params);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
