// Softmax and LogSoftmax device code over the middle dimension of an
// [outer, n, inner] view, shifted by the maximum for stability, with expf
// and logf (not the fast intrinsics).
//
// inner == 1 (the last dimension, the common case): one block per row,
// block-wide reductions for the maximum and for the sum. inner > 1: one
// thread per (outer, inner) column; neighbouring threads read neighbouring
// addresses, so the strided walk over n stays coalesced.

#include "backends/cuda/kernels/softmax.cuh"

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/block_reduce.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

// Softmax (kLog false) or LogSoftmax (kLog true) share the two passes, the
// maximum and the sum of exp(x - max); only the last pass differs.
template <bool kLog>
__global__ void SoftmaxRows(const float* __restrict__ in, float* __restrict__ out,
                            int64_t rows, int64_t n) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = in + row * n;
    float* y = out + row * n;
    float local_max = -INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      local_max = BlockMax()(local_max, x[i]);
    }
    const float row_max = BlockReduce(local_max, BlockMax(), -INFINITY, scratch);
    float local_sum = 0.0f;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const float e = expf(x[i] - row_max);
      if (!kLog) y[i] = e;
      local_sum += e;
    }
    const float sum = BlockReduce(local_sum, BlockSum(), 0.0f, scratch);
    if (kLog) {
      const float shift = row_max + logf(sum);
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = x[i] - shift;
    } else {
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] /= sum;
    }
  }
}

template <bool kLog>
__global__ void SoftmaxColumns(const float* __restrict__ in,
                               float* __restrict__ out, int64_t outer,
                               int64_t n, int64_t inner) {
  SY_GRID_STRIDE_LOOP(column, outer * inner) {
    const int64_t base = (column / inner) * n * inner + column % inner;
    float max_value = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      max_value = BlockMax()(max_value, in[base + i * inner]);
    }
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      const float e = expf(in[base + i * inner] - max_value);
      if (!kLog) out[base + i * inner] = e;
      sum += e;
    }
    if (kLog) {
      const float shift = max_value + logf(sum);
      for (int64_t i = 0; i < n; ++i) {
        out[base + i * inner] = in[base + i * inner] - shift;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) out[base + i * inner] /= sum;
    }
  }
}

// The row kernel when inner == 1, else the column kernel; nothing for an
// empty view.
cudaError_t LaunchRowsOrColumns(
    void (*rows)(const float*, float*, int64_t, int64_t),
    void (*columns)(const float*, float*, int64_t, int64_t, int64_t),
    const float* in, float* out, int64_t outer, int64_t n, int64_t inner,
    cudaStream_t stream) {
  if (outer <= 0 || n <= 0 || inner <= 0) return cudaSuccess;
  if (inner == 1) {
    const int64_t blocks = outer < kMaxBlocks ? outer : kMaxBlocks;
    rows<<<static_cast<unsigned int>(blocks), kBlockReduceThreads, 0, stream>>>(
        in, out, outer, n);
  } else {
    columns<<<Blocks(outer * inner), kThreads, 0, stream>>>(in, out, outer, n,
                                                            inner);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSoftmax(const float* in, float* out, int64_t outer,
                          int64_t n, int64_t inner, cudaStream_t stream) {
  return LaunchRowsOrColumns(&SoftmaxRows<false>, &SoftmaxColumns<false>, in,
                             out, outer, n, inner, stream);
}

cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t stream) {
  return LaunchRowsOrColumns(&SoftmaxRows<true>, &SoftmaxColumns<true>, in,
                             out, outer, n, inner, stream);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
