// One reduction pass over an [outer, n, inner] view (ops/reduce_geometry.h).
//
// inner == 1 (contiguous rows): one block per row, each thread combining a
// strided share of the row, then a block-wide reduction (block_reduce.cuh).
// inner > 1: one thread per (outer, inner) output; neighbouring threads read
// neighbouring addresses, so the walk over n stays coalesced.

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

}  // namespace

cudaError_t LaunchReducePass(ReduceKind kind, const float* in, float* out,
                             int64_t outer, int64_t n, int64_t inner,
                             float divisor, cudaStream_t stream) {
  switch (kind) {
    case ReduceKind::kMax:
      return Launch<BlockMax>(in, out, outer, n, inner, -INFINITY, divisor,
                           stream);
    case ReduceKind::kMin:
      return Launch<BlockMin>(in, out, outer, n, inner, INFINITY, divisor, stream);
    case ReduceKind::kProd:
      return Launch<BlockProd>(in, out, outer, n, inner, 1.0f, divisor, stream);
    default:
      return Launch<BlockSum>(in, out, outer, n, inner, 0.0f, divisor, stream);
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
