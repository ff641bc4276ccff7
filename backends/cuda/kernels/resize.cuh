#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_RESIZE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_RESIZE_CUH_

// Launcher of resize.cu. Plain C++ as every kernels/*.cuh: device
// pointers, geometry and a stream in, the launch's cudaError_t out; empty
// work launches nothing and succeeds.
//
//   ResizeParams p;  // resize.cc fills it from ResizeAttrs::Axis
//   cudaError_t e = LaunchResize(out, in, p, stream);

#include <cstdint>

#include "backends/cuda/kernels/shape_view.cuh"
#include "cuda_runtime_api.h"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// Every axis of the input (row-major, `rank` dims): its lengths, scale and
// modes, from which ops/resize_geometry.h ResizeTaps gives each output
// index's input indices and weights.
struct ResizeParams {
  int rank = 0;
  ResizeAxis axes[kMaxShapeRank];
};
cudaError_t LaunchResize(float* dst, const float* src, const ResizeParams& p,
                         cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_RESIZE_CUH_
