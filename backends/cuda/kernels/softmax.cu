// Softmax and LogSoftmax device code over the middle dimension of an
// [outer, n, inner] view, shifted by the maximum for stability, with expf
// and logf (not the fast intrinsics).
//
// inner == 1 (the last dimension, the common case): one block per row,
// block-wide reductions for the maximum and for the sum. inner > 1: one
// thread per (outer, inner) column; neighbouring threads read neighbouring
// addresses, so the strided walk over n stays coalesced.
//
// Few long rows (reduce_plan.h): two launches over fixed chunks of each
// row, so a whole-tensor softmax no longer runs on one SM. The first writes
// each chunk's (max, sum of exp(x - max)); the second, one block per chunk,
// combines its row's chunk statistics in a fixed order (the same in every
// block of the row) and writes the chunk's outputs.

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

// Stage 1: per (row, chunk), partial[2b] = the chunk's max and
// partial[2b + 1] = sum of exp(x - that max), b = row * chunks + chunk.
__global__ void SoftmaxChunkStats(const float* __restrict__ in,
                                  float* __restrict__ partial, int64_t rows,
                                  int64_t n, int64_t chunks,
                                  int64_t chunk_length) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  // Uniform over the block: BlockReduce needs every thread.
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const int64_t begin = (b % chunks) * chunk_length;
    const int64_t end = begin + chunk_length < n ? begin + chunk_length : n;
    const float* x = in + (b / chunks) * n;
    float local_max = -INFINITY;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      local_max = BlockMax()(local_max, x[i]);
    }
    const float chunk_max =
        BlockReduce(local_max, BlockMax(), -INFINITY, scratch);
    float local_sum = 0.0f;
    // A chunk of -inf only adds nothing (exp(-inf - -inf) would be NaN);
    // a row of -inf only still ends NaN, as in one launch, in stage 2.
    if (chunk_max != -INFINITY) {
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        local_sum += expf(x[i] - chunk_max);
      }
    }
    const float sum = BlockReduce(local_sum, BlockSum(), 0.0f, scratch);
    if (threadIdx.x == 0) {
      partial[2 * b] = chunk_max;
      partial[2 * b + 1] = sum;
    }
  }
}

// Stage 2: per (row, chunk), the row's max M and sum S from the chunk
// statistics (sum of s_c * exp(m_c - M)), then the chunk's outputs.
template <bool kLog>
__global__ void SoftmaxChunkApply(const float* __restrict__ in,
                                  const float* __restrict__ partial,
                                  float* __restrict__ out, int64_t rows,
                                  int64_t n, int64_t chunks,
                                  int64_t chunk_length) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const int64_t row = b / chunks;
    const float* stats = partial + 2 * row * chunks;
    float local_max = -INFINITY;
    for (int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
      local_max = BlockMax()(local_max, stats[2 * c]);
    }
    const float row_max = BlockReduce(local_max, BlockMax(), -INFINITY, scratch);
    float local_sum = 0.0f;
    for (int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
      const float m = stats[2 * c];
      if (m != -INFINITY) local_sum += stats[2 * c + 1] * expf(m - row_max);
    }
    const float sum = BlockReduce(local_sum, BlockSum(), 0.0f, scratch);
    const int64_t begin = (b % chunks) * chunk_length;
    const int64_t end = begin + chunk_length < n ? begin + chunk_length : n;
    const float* x = in + row * n;
    float* y = out + row * n;
    if (kLog) {
      const float shift = row_max + logf(sum);
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        y[i] = x[i] - shift;
      }
    } else {
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        y[i] = expf(x[i] - row_max) / sum;
      }
    }
  }
}

template <bool kLog>
cudaError_t LaunchChunks(const float* in, float* out, int64_t rows, int64_t n,
                         int64_t chunks, int64_t chunk_length, float* partial,
                         cudaStream_t stream) {
  const int64_t work = rows * chunks;
  const unsigned int blocks =
      static_cast<unsigned int>(work < kMaxBlocks ? work : kMaxBlocks);
  SoftmaxChunkStats<<<blocks, kBlockReduceThreads, 0, stream>>>(
      in, partial, rows, n, chunks, chunk_length);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  SoftmaxChunkApply<kLog><<<blocks, kBlockReduceThreads, 0, stream>>>(
      in, partial, out, rows, n, chunks, chunk_length);
  return cudaGetLastError();
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
                          int64_t n, int64_t inner, int64_t chunks,
                          int64_t chunk_length, float* partial,
                          cudaStream_t stream) {
  if (chunks > 1 && inner == 1 && outer > 0 && n > 0) {
    return LaunchChunks<false>(in, out, outer, n, chunks, chunk_length,
                               partial, stream);
  }
  return LaunchRowsOrColumns(&SoftmaxRows<false>, &SoftmaxColumns<false>, in,
                             out, outer, n, inner, stream);
}

cudaError_t LaunchLogSoftmax(const float* in, float* out, int64_t outer,
                             int64_t n, int64_t inner, int64_t chunks,
                             int64_t chunk_length, float* partial,
                             cudaStream_t stream) {
  if (chunks > 1 && inner == 1 && outer > 0 && n > 0) {
    return LaunchChunks<true>(in, out, outer, n, chunks, chunk_length, partial,
                              stream);
  }
  return LaunchRowsOrColumns(&SoftmaxRows<true>, &SoftmaxColumns<true>, in,
                             out, outer, n, inner, stream);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
