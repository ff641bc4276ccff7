// Elementwise device code: ReLU and Add. 16-byte vector loads and stores
// when the pointers allow (buffers from the allocator always do), a scalar
// loop for the tail.

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "backends/cuda/kernels/launch.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

// x <= 0 is false for NaN, so NaN passes through as in PyTorch.
__device__ __forceinline__ float Relu(float x) { return x <= 0.0f ? 0.0f : x; }

__global__ void ReluVec(const float4* __restrict__ in, float4* __restrict__ out,
                        int64_t n4) {
  SY_GRID_STRIDE_LOOP(i, n4) {
    const float4 v = in[i];
    out[i] = make_float4(Relu(v.x), Relu(v.y), Relu(v.z), Relu(v.w));
  }
}

__global__ void ReluScalar(const float* __restrict__ in, float* __restrict__ out,
                           int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = Relu(in[i]); }
}

__global__ void AddVec(const float4* __restrict__ a, const float4* __restrict__ b,
                       float4* __restrict__ out, int64_t n4) {
  SY_GRID_STRIDE_LOOP(i, n4) {
    const float4 x = a[i];
    const float4 y = b[i];
    out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void AddScalar(const float* __restrict__ a, const float* __restrict__ b,
                          float* __restrict__ out, int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = a[i] + b[i]; }
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

cudaError_t LaunchAdd(const float* a, const float* b, float* out, int64_t n,
                      cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  int64_t done = 0;
  if (Aligned16(a) && Aligned16(b) && Aligned16(out) && n >= 4) {
    const int64_t n4 = n / 4;
    AddVec<<<Blocks(n4), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
        reinterpret_cast<float4*>(out), n4);
    done = n4 * 4;
  }
  if (done < n) {
    AddScalar<<<Blocks(n - done), kThreads, 0, stream>>>(a + done, b + done,
                                                        out + done, n - done);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
