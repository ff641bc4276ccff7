// LayerNorm device code: one block per row of n values (grid-stride over
// rows). Two block-wide reductions, the mean and then the mean of squared
// deviations (no cancellation for rows with a large mean), then each thread
// writes its share of (x - mean) * rsqrt(var + epsilon) * scale + bias.

#include "backends/cuda/kernels/layer_norm.cuh"

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/block_reduce.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void LayerNorm(const float* __restrict__ in,
                          const float* __restrict__ scale,
                          const float* __restrict__ bias,
                          float* __restrict__ out, int64_t rows, int64_t n,
                          float epsilon) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = in + row * n;
    float* y = out + row * n;
    float sum = 0.0f;
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) sum += x[t];
    const float mean = BlockReduce(sum, BlockSum(), 0.0f, scratch) / n;
    float squares = 0.0f;
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
      const float d = x[t] - mean;
      squares += d * d;
    }
    const float var = BlockReduce(squares, BlockSum(), 0.0f, scratch) / n;
    const float inv_std = 1.0f / sqrtf(var + epsilon);
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
      const float v = (x[t] - mean) * inv_std * scale[t];
      y[t] = bias != nullptr ? v + bias[t] : v;
    }
  }
}

}  // namespace

cudaError_t LaunchLayerNorm(const float* in, const float* scale,
                            const float* bias, float* out, int64_t rows,
                            int64_t n, float epsilon, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return cudaSuccess;
  const int64_t blocks = rows < kMaxBlocks ? rows : kMaxBlocks;
  LayerNorm<<<static_cast<unsigned int>(blocks), kBlockReduceThreads, 0, stream>>>(
      in, scale, bias, out, rows, n, epsilon);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
