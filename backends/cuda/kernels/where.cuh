#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_WHERE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_WHERE_CUH_

// Launcher of where.cu. Plain C++ as every kernels/*.cuh:
// device pointers, geometry and a stream in, the launch's cudaError_t out;
// empty work launches nothing and succeeds. Elements of 1, 2, 4 or 8 bytes
// are moved without being read, so one launcher serves every dtype.
//
//   WhereParams p = ...;  // where.cc fills it from ops/broadcast.h
//   cudaError_t e = LaunchWhere(out, condition, x, y, 4, p, stream);

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/shape_view.cuh"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// where over a broadcast view of `rank` merged dims: out[i] = condition[c]
// != 0 ? x[a] : y[b], each offset the index times that operand's strides
// (0 where broadcast; ops/broadcast.h BroadcastLayout).
struct WhereParams {
  int rank = 0;
  int64_t dims[kMaxShapeRank] = {};
  int64_t strides[3][kMaxShapeRank] = {};  // condition, x, y
};
cudaError_t LaunchWhere(void* dst, const uint8_t* condition, const void* x,
                        const void* y, size_t element_size,
                        const WhereParams& params, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_WHERE_CUH_
