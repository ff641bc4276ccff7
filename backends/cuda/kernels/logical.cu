// Device code of the logical ops (logical.cuh): one thread per output
// element in a grid-stride loop, each operand read at its broadcast offset.

#include "backends/cuda/kernels/logical.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/logical_functors.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename F>
__global__ void LogicalKernel(F f, const uint8_t* __restrict__ a,
                              const uint8_t* __restrict__ b,
                              uint8_t* __restrict__ out, LogicalParams p,
                              int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t index = rest % p.dims[d];
      rest /= p.dims[d];
      ia += index * p.strides[0][d];
      ib += index * p.strides[1][d];
    }
    out[i] = f(a[ia], b[ib]);
  }
}

__global__ void NotKernel(const uint8_t* __restrict__ in,
                          uint8_t* __restrict__ out, int64_t n) {
  const logical::Not f;
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = f(in[i]); }
}

}  // namespace

template <typename F>
cudaError_t LaunchLogical(F f, const uint8_t* a, const uint8_t* b, uint8_t* out,
                          const LogicalParams& params, cudaStream_t stream) {
  if (params.rank < 1 || params.rank > kMaxShapeRank) return cudaErrorInvalidValue;
  const int64_t total = ViewElements(params.rank, params.dims);
  if (total <= 0) return cudaSuccess;
  LogicalKernel<F><<<Blocks(total), kThreads, 0, stream>>>(f, a, b, out, params,
                                                           total);
  return cudaGetLastError();
}

cudaError_t LaunchLogicalNot(const uint8_t* in, uint8_t* out, int64_t n,
                             cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  NotKernel<<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

#define SY_INSTANTIATE_LOGICAL(op, Functor)                                  \
  template cudaError_t LaunchLogical<logical::Functor>(                      \
      logical::Functor, const uint8_t*, const uint8_t*, uint8_t*,            \
      const LogicalParams&, cudaStream_t);
SY_LOGICAL_BINARY_OPS(SY_INSTANTIATE_LOGICAL)
#undef SY_INSTANTIATE_LOGICAL

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
