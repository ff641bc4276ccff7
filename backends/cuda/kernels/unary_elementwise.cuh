#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_UNARY_ELEMENTWISE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_UNARY_ELEMENTWISE_CUH_

// The launcher of the unary elementwise ops' device code
// (unary_elementwise.cu), callable from plain C++: a functor of
// ops/unary_functors.h at float, device pointers, a size and a stream in,
// the launch's cudaError_t out. unary_elementwise.cu instantiates it for
// every op of SY_UNARY_ELEMENTWISE_OPS; empty work launches nothing.
//
//   cudaError_t e = LaunchUnary(unary::Clip<float>{0, 6}, x, y, n, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out[i] = f(in[i]) over n float32 elements.
template <typename F>
cudaError_t LaunchUnary(F f, const float* in, float* out, int64_t n,
                        cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_UNARY_ELEMENTWISE_CUH_
