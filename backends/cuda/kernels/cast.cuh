#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_CAST_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_CAST_CUH_

// The launcher of cast's device code (cast.cu), callable from plain C++:
// device pointers, the two dtypes, a size and a stream in, the launch's
// cudaError_t out. Empty work launches nothing.
//
//   cudaError_t e = LaunchCast(in, CastType::kFloat32, out, CastType::kInt64,
//                              n, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// The dtypes cast runs in on CUDA.
enum class CastType : int { kFloat32, kFloat16, kInt32, kInt64 };

// out[i] = in[i] converted, by ops/elementwise_attrs.h's CastAttrs rules:
// floating -> integer truncates and saturates, NaN -> 0; integer -> integer
// wraps; -> float16 rounds to nearest even (overflow to inf).
cudaError_t LaunchCast(const void* in, CastType from, void* out, CastType to,
                       int64_t n, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_CAST_CUH_
