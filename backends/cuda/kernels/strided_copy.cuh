#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_CUH_

// Launcher of strided_copy.cu, the one kernel of transpose, slice, expand,
// and of each operand of concat and split. Plain C++ as every kernels/*.cuh:
// device pointers, geometry and a stream in, the launch's cudaError_t out;
// empty work launches nothing and succeeds. Elements of 1, 2, 4 or 8 bytes
// are moved without being read, so one launcher serves every dtype.
//
//   StridedCopyParams p;  // from MakeStridedCopy (strided_copy_host.h)
//   cudaError_t e = LaunchStridedCopy(out, in, 4, p, stream);

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/shape_view.cuh"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// dst[sum(i[d] * dst_strides[d])] = src[sum(i[d] * src_strides[d])] for i
// within dims (strides in elements; 0 broadcasts, negative walks back). One
// thread per element, in the destination's order.
struct StridedCopyParams {
  int rank = 0;
  int64_t dims[kMaxShapeRank] = {};
  int64_t dst_strides[kMaxShapeRank] = {};
  int64_t src_strides[kMaxShapeRank] = {};
};
cudaError_t LaunchStridedCopy(void* dst, const void* src, size_t element_size,
                              const StridedCopyParams& params,
                              cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_CUH_
