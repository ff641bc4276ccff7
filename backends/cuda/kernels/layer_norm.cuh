#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_LAYER_NORM_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_LAYER_NORM_CUH_

// Launcher of layer_norm.cu (plain C++, as every kernels/*.cuh: device
// pointers, sizes and a stream in, the launch's cudaError_t out; empty work
// launches nothing and succeeds).
//
//   cudaError_t e = LaunchLayerNorm(x, scale, bias, y, rows, n, 1e-5f, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// LayerNorm over consecutive rows of n values: (x - mean) * rsqrt(var +
// epsilon) * scale + bias (bias null: none), one block per row.
cudaError_t LaunchLayerNorm(const float* in, const float* scale,
                            const float* bias, float* out, int64_t rows,
                            int64_t n, float epsilon, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_LAYER_NORM_CUH_
