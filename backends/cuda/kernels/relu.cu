// Device code of relu: ops/unary_functors.h's Relu formula with 16-byte
// vector loads and stores when the pointers allow (buffers from the
// allocator always do), a scalar loop for the tail.

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "backends/cuda/kernels/relu.cuh"
#include "ops/unary_functors.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

// No __restrict__: linear+relu and others run it in place (in == out).
__global__ void ReluVec(const float4* in, float4* out, int64_t n4) {
  const unary::Relu<float> relu;
  SY_GRID_STRIDE_LOOP(i, n4) {
    const float4 v = in[i];
    out[i] = make_float4(relu(v.x), relu(v.y), relu(v.z), relu(v.w));
  }
}

__global__ void ReluScalar(const float* in, float* out, int64_t n) {
  const unary::Relu<float> relu;
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = relu(in[i]); }
}

bool Aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

}  // namespace

cudaError_t LaunchRelu(const float* in, float* out, int64_t n,
                       cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  int64_t done = 0;
  if (Aligned16(in) && Aligned16(out) && n >= 4) {
    const int64_t n4 = n / 4;
    ReluVec<<<Blocks(n4), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
    done = n4 * 4;
  }
  if (done < n) {
    ReluScalar<<<Blocks(n - done), kThreads, 0, stream>>>(in + done, out + done,
                                                         n - done);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
