#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_RELU_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_RELU_CUH_

// The launcher of relu's device code (relu.cu), callable from plain C++:
// relu.cc and the linear+relu epilogue (linear.cc).
//
//   cudaError_t e = LaunchRelu(x, y, n, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out = max(in, 0) over n float32 elements, NaN kept (as PyTorch); in may
// be out. Empty work launches nothing.
cudaError_t LaunchRelu(const float* in, float* out, int64_t n,
                       cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_RELU_CUH_
