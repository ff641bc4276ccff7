#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_

// Launchers of softmax.cu, softmax and log-softmax over the middle
// dimension of an [outer, n, inner] view (plain C++, as every
// kernels/*.cuh: device pointers, sizes and a stream in, the launch's
// cudaError_t out; empty work launches nothing and succeeds).
//
//   cudaError_t e = LaunchSoftmax(x, y, outer, n, inner, /*chunks=*/1, n,
//                                 nullptr, stream);
//
// chunks > 1 (inner == 1 only; backends/cuda/reduce_plan.h): each row's n
// is cut into chunks of chunk_length (the last shorter). A first launch
// writes each chunk's maximum and sum of exp(x - its maximum) into
// `partial`, 2 * outer * chunks floats; a second combines a row's chunks in
// index order and writes the chunk's outputs. Otherwise one launch, and
// chunk_length and partial are unused.

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// exp(x - max) / sum(exp(x - max)).
cudaError_t LaunchSoftmax(const float* in, float* out, int64_t outer,
                          int64_t n, int64_t inner, int64_t chunks,
                          int64_t chunk_length, float* partial,
                          cudaStream_t stream);

// x - max - log(sum(exp(x - max))).
cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, int64_t chunks,
                             int64_t chunk_length, float* partial,
                             cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SOFTMAX_CUH_
