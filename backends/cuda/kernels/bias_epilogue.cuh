#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_BIAS_EPILOGUE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_BIAS_EPILOGUE_CUH_

// Launchers of bias_epilogue.cu, the bias steps around cuBLASLt and cuDNN
// calls that those libraries do not fuse (linear.cc, conv2d.cc). As every
// kernels/*.cuh: plain C++, device pointers, sizes and a stream in, the
// launch's cudaError_t out; empty work launches nothing and succeeds.
//
//   cudaError_t e = LaunchFillRows(bias, y, rows, cols, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out[r, c] = bias[c] (0 when bias is null) for a [rows, cols] output: a
// Linear with zero input features.
cudaError_t LaunchFillRows(const float* bias, float* out, int64_t rows,
                           int64_t cols, cudaStream_t stream);

// out[i] = max(out[i] + bias[c], 0) in place, NaN kept, where c is the
// channel of element i of an NCHW-like [batch, channels, inner] tensor
// (bias null: no addition). The epilogue of conv2d+relu when cuDNN's fused
// call is not available.
cudaError_t LaunchBiasReluInPlace(float* out, const float* bias, int64_t batch,
                                  int64_t channels, int64_t inner,
                                  cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_BIAS_EPILOGUE_CUH_
