// Device code of roi_align (roi_align.cuh): one thread per output element
// in a grid-stride loop, sampling through ops/roi_align_geometry.h as the
// CPU kernel does.

#include "backends/cuda/kernels/roi_align.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/roi_align_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void RoiAlignKernel(const float* __restrict__ input, const float* __restrict__ rois,
                               const int64_t* __restrict__ batch_indices,
                               float* __restrict__ out, RoiAlignParams p, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    const int64_t pw = i % p.output_width;
    const int64_t ph = (i / p.output_width) % p.output_height;
    const int64_t c = (i / (p.output_width * p.output_height)) % p.channels;
    const int64_t r = i / (p.output_width * p.output_height * p.channels);
    RoiWindow w;
    if (!RoiWindowOf(rois + 4 * r, p.spatial_scale, p.aligned, p.output_height, p.output_width,
                     p.sampling_ratio, p.max_grid, &w)) {
      out[i] = 0.0f;
      continue;
    }
    const float* plane = input + (batch_indices[r] * p.channels + c) * p.height * p.width;
    out[i] = RoiAlignBin(plane, p.height, p.width, w, ph, pw, p.max_mode);
  }
}

}  // namespace

cudaError_t LaunchRoiAlign(const float* input, const float* rois, const int64_t* batch_indices,
                           float* out, const RoiAlignParams& params, cudaStream_t stream) {
  const int64_t total =
      params.num_rois * params.channels * params.output_height * params.output_width;
  if (total <= 0) return cudaSuccess;
  RoiAlignKernel<<<Blocks(total), kThreads, 0, stream>>>(input, rois, batch_indices, out,
                                                         params, total);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
