// resize (resize.cuh): one thread per output element, which takes each
// axis's taps from ops/resize_geometry.h ResizeTaps and sums the products
// of their weights times the input elements they name (N-linear, N-cubic;
// nearest and identity axes have one tap).

#include "backends/cuda/kernels/resize.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void ResizeKernel(float* __restrict__ dst,
                             const float* __restrict__ src, ResizeParams p,
                             int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t index[kMaxShapeRank][kMaxResizeTaps];
    double weight[kMaxShapeRank][kMaxResizeTaps];
    int count[kMaxShapeRank];
    int pick[kMaxShapeRank];
    int64_t rest = i;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t o = rest % p.axes[d].out;
      rest /= p.axes[d].out;
      count[d] = ResizeTaps(p.axes[d], o, index[d], weight[d]);
      pick[d] = 0;
    }
    // Every combination of one tap per axis, last axis fastest.
    float acc = 0.0f;
    while (true) {
      int64_t offset = 0;
      float w = 1.0f;
      for (int d = 0; d < p.rank; ++d) {
        offset = offset * p.axes[d].in + index[d][pick[d]];
        w *= static_cast<float>(weight[d][pick[d]]);
      }
      acc += w * src[offset];
      int d = p.rank - 1;
      while (d >= 0 && ++pick[d] == count[d]) pick[d--] = 0;
      if (d < 0) break;
    }
    dst[i] = acc;
  }
}

}  // namespace

cudaError_t LaunchResize(float* dst, const float* src, const ResizeParams& p,
                         cudaStream_t stream) {
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.axes[d].out;
  if (total <= 0) return cudaSuccess;
  ResizeKernel<<<Blocks(total), kThreads, 0, stream>>>(dst, src, p, total);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
