#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_CONV_TRANSPOSE2D_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_CONV_TRANSPOSE2D_CUH_

// The launcher of conv_transpose2d's device code (conv_transpose2d.cu),
// callable from plain C++: float32 device pointers (bias may be null), the
// geometry and a stream in, the launch's cudaError_t out; empty work
// launches nothing.

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

struct ConvTranspose2dParams {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t o = 0, oh = 0, ow = 0;       // output channels and size
  int64_t kh = 1, kw = 1, groups = 1;
  int64_t stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

cudaError_t LaunchConvTranspose2d(const float* input, const float* weight, const float* bias,
                                  float* out, const ConvTranspose2dParams& params,
                                  cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_CONV_TRANSPOSE2D_CUH_
