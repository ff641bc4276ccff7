#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_GATHER_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_GATHER_CUH_

// Launcher of gather.cu. Plain C++ as every kernels/*.cuh:
// device pointers, geometry and a stream in, the launch's cudaError_t out;
// empty work launches nothing and succeeds. Elements of 1, 2, 4 or 8 bytes
// are moved without being read, so one launcher serves every dtype.
//
//   cudaError_t e = LaunchGather(out, data, indices, true, outer, n, count,
//                                inner, 4, bad_position, stream);

#include <cstddef>
#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// gather over data [outer, n, inner] with `count` indices (int64, or int32
// when !indices_int64): out[o, k, :] = data[o, wrap(indices[k]), :]. An
// index outside [-n, n) is never read through: its output is zeroed and
// atomicMin lowers *bad_position (which the caller sets to UINT64_MAX
// before) to its position k, for the host to report after the kernel
// (bad_position may be null when the host checked the indices already).
cudaError_t LaunchGather(void* dst, const void* data, const void* indices,
                         bool indices_int64, int64_t outer, int64_t n,
                         int64_t count, int64_t inner, size_t element_size,
                         unsigned long long* bad_position, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_GATHER_CUH_
