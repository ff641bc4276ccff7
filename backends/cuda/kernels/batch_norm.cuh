#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_BATCH_NORM_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_BATCH_NORM_CUH_

// Launcher of batch_norm.cu (plain C++, as every kernels/*.cuh: device
// pointers, sizes and a stream in, the launch's cudaError_t out).
//
//   cudaError_t e = LaunchBatchNorm(x, w, b, mean, var, 1e-5, scratch, y,
//                                   n, c, h * w, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// BatchNorm at inference in two launches: per channel (in double, rounded
// once) scale = weight / sqrt(var + epsilon) and shift = bias - mean * scale
// into `scale_shift` (2 * channels floats), then out = in * scale[c] +
// shift[c] (one fused multiply-add) over [batch, channels, inner].
cudaError_t LaunchBatchNorm(const float* in, const float* weight, const float* bias,
                            const float* mean, const float* var, double epsilon,
                            float* scale_shift, float* out, int64_t batch,
                            int64_t channels, int64_t inner, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_BATCH_NORM_CUH_
