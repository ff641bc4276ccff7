// One reduction pass over an [outer, n, inner] view (ops/reduce_geometry.h).
//
// inner == 1 (contiguous rows): one block per row, each thread combining a
// strided share of the row, then a block-wide reduction (block_reduce.cuh).
// inner > 1: one thread per (outer, inner) output; neighbouring threads read
// neighbouring addresses, so the walk over n stays coalesced.
//
// Few outputs and a long n (reduce_plan.h): two stages. The *Chunks kernels
// reduce each fixed chunk of n into a partial buffer [outer, chunks, inner],
// then the kernels above reduce it over the chunks. The partition depends
// on the shape alone and every sum runs in a fixed order, so results are
// the same on every run.

#include "backends/cuda/kernels/reduce.cuh"

#include <cmath>
#include <cstdint>

#include "backends/cuda/kernels/block_reduce.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename Op>
__global__ void ReduceRows(const float* __restrict__ in,
                           float* __restrict__ out, int64_t rows, int64_t n,
                           float identity, float divisor, Op op) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* src = in + row * n;
    float acc = identity;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) acc = op(acc, src[i]);
    const float total = BlockReduce(acc, op, identity, scratch);
    if (threadIdx.x == 0) out[row] = total / divisor;
  }
}

template <typename Op>
__global__ void ReduceColumns(const float* __restrict__ in,
                              float* __restrict__ out, int64_t outer, int64_t n,
                              int64_t inner, float identity, float divisor,
                              Op op) {
  SY_GRID_STRIDE_LOOP(index, outer * inner) {
    const int64_t o = index / inner, j = index % inner;
    const float* src = in + o * n * inner + j;
    float acc = identity;
    for (int64_t i = 0; i < n; ++i) acc = op(acc, src[i * inner]);
    out[index] = acc / divisor;
  }
}

// Stage 1, inner == 1: one block per (row, chunk), partial[row * chunks + c].
template <typename Op>
__global__ void ReduceRowChunks(const float* __restrict__ in,
                                float* __restrict__ partial, int64_t rows,
                                int64_t n, int64_t chunks,
                                int64_t chunk_length, float identity, Op op) {
  __shared__ float scratch[kBlockReduceThreads / 32];
  // Uniform over the block: BlockReduce needs every thread.
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const int64_t row = b / chunks, c = b % chunks;
    const int64_t begin = c * chunk_length;
    const int64_t end = begin + chunk_length < n ? begin + chunk_length : n;
    const float* src = in + row * n;
    float acc = identity;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      acc = op(acc, src[i]);
    }
    const float total = BlockReduce(acc, op, identity, scratch);
    if (threadIdx.x == 0) partial[b] = total;
  }
}

// Stage 1, inner > 1: one thread per (outer, chunk, inner), which is also
// its index in partial.
template <typename Op>
__global__ void ReduceColumnChunks(const float* __restrict__ in,
                                   float* __restrict__ partial, int64_t outer,
                                   int64_t n, int64_t inner, int64_t chunks,
                                   int64_t chunk_length, float identity,
                                   Op op) {
  SY_GRID_STRIDE_LOOP(index, outer * chunks * inner) {
    const int64_t o = index / (chunks * inner);
    const int64_t c = (index / inner) % chunks, j = index % inner;
    const int64_t begin = c * chunk_length;
    const int64_t end = begin + chunk_length < n ? begin + chunk_length : n;
    const float* src = in + o * n * inner + j;
    float acc = identity;
    for (int64_t i = begin; i < end; ++i) acc = op(acc, src[i * inner]);
    partial[index] = acc;
  }
}

template <typename Op>
cudaError_t Launch(const float* in, float* out, int64_t outer, int64_t n,
                   int64_t inner, float identity, float divisor,
                   cudaStream_t stream) {
  if (outer * inner <= 0) return cudaSuccess;
  if (inner == 1) {
    const int64_t blocks = outer < kMaxBlocks ? outer : kMaxBlocks;
    ReduceRows<<<static_cast<unsigned int>(blocks), kBlockReduceThreads, 0,
                 stream>>>(in, out, outer, n, identity, divisor, Op());
  } else {
    ReduceColumns<<<Blocks(outer * inner), kThreads, 0, stream>>>(
        in, out, outer, n, inner, identity, divisor, Op());
  }
  return cudaGetLastError();
}

// One launch, or the chunks into `partial` and then one launch over them.
template <typename Op>
cudaError_t LaunchSplit(const float* in, float* out, int64_t outer, int64_t n,
                        int64_t inner, float identity, float divisor,
                        int64_t chunks, int64_t chunk_length, float* partial,
                        cudaStream_t stream) {
  if (chunks <= 1 || outer * inner <= 0 || n <= 0) {
    return Launch<Op>(in, out, outer, n, inner, identity, divisor, stream);
  }
  if (inner == 1) {
    const int64_t work = outer * chunks;
    const int64_t blocks = work < kMaxBlocks ? work : kMaxBlocks;
    ReduceRowChunks<<<static_cast<unsigned int>(blocks), kBlockReduceThreads,
                      0, stream>>>(in, partial, outer, n, chunks, chunk_length,
                                   identity, Op());
  } else {
    ReduceColumnChunks<<<Blocks(outer * chunks * inner), kThreads, 0,
                         stream>>>(in, partial, outer, n, inner, chunks,
                                   chunk_length, identity, Op());
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  return Launch<Op>(partial, out, outer, chunks, inner, identity, divisor,
                    stream);
}

}  // namespace

cudaError_t LaunchReducePass(ReduceKind kind, const float* in, float* out,
                             int64_t outer, int64_t n, int64_t inner,
                             float divisor, int64_t chunks,
                             int64_t chunk_length, float* partial,
                             cudaStream_t stream) {
  switch (kind) {
    case ReduceKind::kMax:
      return LaunchSplit<BlockMax>(in, out, outer, n, inner, -INFINITY,
                                   divisor, chunks, chunk_length, partial,
                                   stream);
    case ReduceKind::kMin:
      return LaunchSplit<BlockMin>(in, out, outer, n, inner, INFINITY, divisor,
                                   chunks, chunk_length, partial, stream);
    case ReduceKind::kProd:
      return LaunchSplit<BlockProd>(in, out, outer, n, inner, 1.0f, divisor,
                                    chunks, chunk_length, partial, stream);
    default:
      return LaunchSplit<BlockSum>(in, out, outer, n, inner, 0.0f, divisor,
                                   chunks, chunk_length, partial, stream);
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
