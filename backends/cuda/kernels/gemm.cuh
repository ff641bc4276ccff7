#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_GEMM_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_GEMM_CUH_

// Launcher of gemm.cu, the device code of gemm and matmul (gemm.cc). Plain
// C++ as every kernels/*.cuh: device pointers, parameters and a stream in,
// the launch's cudaError_t out; empty work launches nothing and succeeds.
//
//   GemmParams p = ...;
//   cudaError_t e = LaunchGemm(a, b, c, y, p, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// y = alpha * op(a) op(b) + beta * c over a batch of matrices, by a tiled
// kernel with shared-memory tiles (float accumulation). op(a)[i, t] is
// a[a_offset + i * a_row + t * a_col] (likewise b), so transposes are
// strides. Output matrix z (of batch_count, row-major over `batch`) reads
// a's matrix at element offset sum_d coord_d * a_step[d] (likewise b) and
// is y + z * m * n. c (null: none) is read at i * c_row + j * c_col for
// every z (gemm's broadcast c).
inline constexpr int kMaxGemmBatchDims = 8;
struct GemmParams {
  int64_t m = 0, n = 0, k = 0;
  int64_t a_row = 0, a_col = 0, b_row = 0, b_col = 0;
  float alpha = 1.0f, beta = 0.0f;
  int64_t c_row = 0, c_col = 0;
  int batch_rank = 0;
  int64_t batch[kMaxGemmBatchDims] = {};
  int64_t a_step[kMaxGemmBatchDims] = {};
  int64_t b_step[kMaxGemmBatchDims] = {};
  int64_t batch_count = 1;
};
cudaError_t LaunchGemm(const float* a, const float* b, const float* c, float* y,
                       const GemmParams& params, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_GEMM_CUH_
