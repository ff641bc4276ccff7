// Device code of the comparisons (comparison.cuh): one thread per output
// element in a grid-stride loop, each operand read at its broadcast offset.

#include "backends/cuda/kernels/comparison.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/comparison_functors.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename F, typename S>
__global__ void ComparisonKernel(F f, const S* __restrict__ a, const S* __restrict__ b,
                                 uint8_t* __restrict__ out, int64_t n,
                                 BroadcastIndexing index) {
  SY_GRID_STRIDE_LOOP(i, n) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t k = rest % index.dims[d];
      rest /= index.dims[d];
      ia += k * index.strides_a[d];
      ib += k * index.strides_b[d];
    }
    out[i] = f(a[ia], b[ib]);
  }
}

}  // namespace

template <typename F, typename S>
cudaError_t LaunchComparison(F f, const S* a, const S* b, uint8_t* out, int64_t n,
                             const BroadcastIndexing& broadcast, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (broadcast.rank < 1 || broadcast.rank > kMaxBroadcastRank) return cudaErrorInvalidValue;
  ComparisonKernel<F, S><<<Blocks(n), kThreads, 0, stream>>>(f, a, b, out, n, broadcast);
  return cudaGetLastError();
}

#define SY_INSTANTIATE_COMPARISON_AT(Functor, T)                                        \
  template cudaError_t LaunchComparison<compare::Functor<T>, compare::Stored<T>>(       \
      compare::Functor<T>, const compare::Stored<T>*, const compare::Stored<T>*,        \
      uint8_t*, int64_t, const BroadcastIndexing&, cudaStream_t);
#define SY_INSTANTIATE_COMPARISON(op, Functor)     \
  SY_INSTANTIATE_COMPARISON_AT(Functor, float)     \
  SY_INSTANTIATE_COMPARISON_AT(Functor, int64_t)   \
  SY_INSTANTIATE_COMPARISON_AT(Functor, int32_t)   \
  SY_INSTANTIATE_COMPARISON_AT(Functor, bool)
SY_COMPARISON_OPS(SY_INSTANTIATE_COMPARISON)
#undef SY_INSTANTIATE_COMPARISON
#undef SY_INSTANTIATE_COMPARISON_AT

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
