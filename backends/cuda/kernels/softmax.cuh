#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_

// Launchers of softmax.cu, softmax and log-softmax over the middle
// dimension of an [outer, n, inner] view (plain C++, as every
// kernels/*.cuh: device pointers, sizes and a stream in, the launch's
// cudaError_t out; empty work launches nothing and succeeds).
//
//   cudaError_t e = LaunchSoftmax(x, y, outer, n, inner, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// exp(x - max) / sum(exp(x - max)).
cudaError_t LaunchSoftmax(const float* in, float* out, int64_t outer,
                          int64_t n, int64_t inner, cudaStream_t stream);

// x - max - log(sum(exp(x - max))).
cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_
