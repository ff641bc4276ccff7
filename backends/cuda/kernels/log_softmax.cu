// LogSoftmax device code over the middle dimension of an [outer, n, inner]
// view: x - max - log(sum(exp(x - max))), with expf and logf (not the fast
// intrinsics).
//
// inner == 1 (the last dimension): one block per row, block-wide
// reductions for the maximum and the sum. inner > 1: one thread per
// (outer, inner) column, coalesced across neighbouring threads.

#include "backends/cuda/kernels/log_softmax.cuh"

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/block_reduce.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void LogSoftmaxRows(const float* __restrict__ in,
                               float* __restrict__ out, int64_t rows,
                               int64_t n) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = in + row * n;
    float* y = out + row * n;
    float max_value = -INFINITY;
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
      max_value = BlockMax()(max_value, x[t]);
    }
    max_value = BlockReduce(max_value, BlockMax(), -INFINITY, scratch);
    float sum = 0.0f;
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
      sum += expf(x[t] - max_value);
    }
    const float shift =
        max_value + logf(BlockReduce(sum, BlockSum(), 0.0f, scratch));
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) y[t] = x[t] - shift;
  }
}

__global__ void LogSoftmaxColumns(const float* __restrict__ in,
                                  float* __restrict__ out, int64_t outer,
                                  int64_t n, int64_t inner) {
  SY_GRID_STRIDE_LOOP(index, outer * inner) {
    const int64_t base = (index / inner) * n * inner + index % inner;
    float max_value = -INFINITY;
    for (int64_t k = 0; k < n; ++k) {
      max_value = BlockMax()(max_value, in[base + k * inner]);
    }
    float sum = 0.0f;
    for (int64_t k = 0; k < n; ++k)
      sum += expf(in[base + k * inner] - max_value);
    const float shift = max_value + logf(sum);
    for (int64_t k = 0; k < n; ++k) {
      out[base + k * inner] = in[base + k * inner] - shift;
    }
  }
}

}  // namespace

cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t stream) {
  if (outer * n * inner <= 0) return cudaSuccess;
  if (inner == 1) {
    const int64_t blocks = outer < kMaxBlocks ? outer : kMaxBlocks;
    LogSoftmaxRows<<<static_cast<unsigned int>(blocks), kBlockReduceThreads, 0,
                     stream>>>(in, out, outer, n);
  } else {
    LogSoftmaxColumns<<<Blocks(outer * inner), kThreads, 0, stream>>>(
        in, out, outer, n, inner);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
