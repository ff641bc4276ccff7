#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_

// Launchers of elementwise.cu (ReLU, Add), callable from plain C++:
// device pointers, sizes and a stream in, the launch's cudaError_t out
// (cudaGetLastError after the launch, so a bad configuration is reported at
// once; faults inside a kernel surface at the next synchronization). Empty
// work launches nothing and succeeds.
//
//   cudaError_t e = LaunchRelu(x, y, n, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out = max(in, 0), NaN kept (as PyTorch).
cudaError_t LaunchRelu(const float* in, float* out, int64_t n,
                       cudaStream_t stream);

// out = a + b, elementwise.
cudaError_t LaunchAdd(const float* a, const float* b, float* out, int64_t n,
                      cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
