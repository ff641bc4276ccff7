// Device code of the unary elementwise ops: one grid-stride kernel template
// over the functors of ops/unary_functors.h, instantiated at float for each
// op of SY_UNARY_ELEMENTWISE_OPS. IEEE division and square root (nvcc's
// defaults, no fast math), so neg, abs, sqrt, reciprocal and clip round
// exactly as the CPU does. NaN stays NaN (the functors' bounds keep it).

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "backends/cuda/kernels/unary_elementwise.cuh"
#include "ops/unary_functors.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename F>
__global__ void UnaryKernel(F f, const float* __restrict__ in,
                            float* __restrict__ out, int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = f(in[i]); }
}

}  // namespace

template <typename F>
cudaError_t LaunchUnary(F f, const float* in, float* out, int64_t n,
                        cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  UnaryKernel<F><<<Blocks(n), kThreads, 0, stream>>>(f, in, out, n);
  return cudaGetLastError();
}

#define SY_INSTANTIATE_UNARY(op, Functor, Types, flops, Attrs)          \
  template cudaError_t LaunchUnary<unary::Functor<float>>(              \
      unary::Functor<float>, const float*, float*, int64_t, cudaStream_t);
SY_UNARY_ELEMENTWISE_OPS(SY_INSTANTIATE_UNARY)
#undef SY_INSTANTIATE_UNARY

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
