#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_NN_FAMILY_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_NN_FAMILY_LAUNCH_H_

// Launchers of the nn family's device code (avg_pool2d.cu, reduce.cu,
// gemm.cu, layer_norm.cu, log_softmax.cu), callable from plain C++: device
// pointers, sizes and a stream in, the launch's cudaError_t out
// (cudaGetLastError after the launch). Empty work launches nothing and
// succeeds.
//
//   kernels::GemmParams p = ...;
//   cudaError_t e = kernels::LaunchGemm(a, b, c, y, p, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// Average pooling over `planes` NCHW planes of h x w into ho x wo, windows
// and divisors as ops/pool_geometry.h AvgPoolSpan (ONNX AveragePool).
struct AvgPool2dParams {
  int64_t planes, h, w, ho, wo;
  int64_t kernel_h, kernel_w, stride_h, stride_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  bool count_include_pad;
};
cudaError_t LaunchAvgPool2d(const float* in, float* out,
                            const AvgPool2dParams& params, cudaStream_t stream);

// One reduction pass (ops/reduce_geometry.h): in as [outer, n, inner]
// reduced over n into out [outer, inner], each result divided by `divisor`
// (the mean's count on its last pass; 1 otherwise). max and min propagate
// NaN; an empty pass (n == 0) writes 0, -inf or +inf.
enum class ReduceKind { kSum, kMax, kMin };
cudaError_t LaunchReducePass(ReduceKind kind, const float* in, float* out,
                             int64_t outer, int64_t n, int64_t inner,
                             float divisor, cudaStream_t stream);

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

// LayerNorm over consecutive rows of n values: (x - mean) * rsqrt(var +
// epsilon) * scale + bias (bias null: none), one block per row.
cudaError_t LaunchLayerNorm(const float* in, const float* scale,
                            const float* bias, float* out, int64_t rows,
                            int64_t n, float epsilon, cudaStream_t stream);

// LogSoftmax over the middle dimension of an [outer, n, inner] view.
cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_NN_FAMILY_LAUNCH_H_
