#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_PAD_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_PAD_CUH_

// Launcher of pad.cu. Plain C++ as every kernels/*.cuh:
// device pointers, geometry and a stream in, the launch's cudaError_t out;
// empty work launches nothing and succeeds. Elements of 1, 2, 4 or 8 bytes
// are moved without being read, so one launcher serves every dtype.
//
//   PadParams p = ...;  // pad.cc fills it from the attributes
//   cudaError_t e = LaunchPad(out, in, 4, p, stream);

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/shape_view.cuh"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// Output element o copies the input element whose index along each dim d
// is the mode's ops/pad_geometry.h function of (o_d, begins[d],
// in_dims[d]), or `fill` (the element's bytes, low bytes first) where that
// is -1. mode: 0 constant, 1 reflect, 2 edge (PadMode's order).
struct PadParams {
  int rank = 0;
  int mode = 0;
  int64_t out_dims[kMaxShapeRank] = {};
  int64_t in_dims[kMaxShapeRank] = {};
  int64_t begins[kMaxShapeRank] = {};
  uint64_t fill = 0;
};
cudaError_t LaunchPad(void* dst, const void* src, size_t element_size,
                      const PadParams& params, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_PAD_CUH_
