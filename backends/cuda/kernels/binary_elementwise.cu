// Device code of the binary arithmetic ops with numpy broadcasting: kernel
// templates over the functors of ops/binary_functors.h, instantiated at
// float for each op of SY_BINARY_ELEMENTWISE_OPS. Grid-stride loops over
// int64 indices; 16-byte vector loads for same-shape operands when aligned.
// IEEE division (nvcc's default, no fast math), so + - * / round exactly as
// the CPU does.

#include <cstdint>

#include "backends/cuda/kernels/binary_elementwise.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/binary_functors.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

bool Aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

template <typename F>
__global__ void BinarySameVec(F f, const float4* __restrict__ a,
                              const float4* __restrict__ b,
                              float4* __restrict__ out, int64_t n4) {
  SY_GRID_STRIDE_LOOP(i, n4) {
    const float4 x = a[i];
    const float4 y = b[i];
    out[i] = make_float4(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));
  }
}

template <typename F>
__global__ void BinarySame(F f, const float* __restrict__ a,
                           const float* __restrict__ b,
                           float* __restrict__ out, int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = f(a[i], b[i]); }
}

template <typename F>
__global__ void BinaryBroadcast(F f, const float* __restrict__ a,
                                const float* __restrict__ b,
                                float* __restrict__ out, int64_t n,
                                BroadcastIndexing index) {
  SY_GRID_STRIDE_LOOP(i, n) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t dim = index.dims[d];
      const int64_t k = rest % dim;
      rest /= dim;
      ia += k * index.strides_a[d];
      ib += k * index.strides_b[d];
    }
    out[i] = f(a[ia], b[ib]);
  }
}

}  // namespace

template <typename F>
cudaError_t LaunchBinary(F f, const float* a, const float* b, float* out,
                         int64_t n, const BroadcastIndexing* broadcast,
                         cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (broadcast != nullptr) {
    if (broadcast->rank < 1 || broadcast->rank > kMaxBroadcastRank) {
      return cudaErrorInvalidValue;
    }
    BinaryBroadcast<F><<<Blocks(n), kThreads, 0, stream>>>(f, a, b, out, n,
                                                           *broadcast);
    return cudaGetLastError();
  }
  int64_t done = 0;
  if (Aligned16(a) && Aligned16(b) && Aligned16(out) && n >= 4) {
    const int64_t n4 = n / 4;
    BinarySameVec<F><<<Blocks(n4), kThreads, 0, stream>>>(
        f, reinterpret_cast<const float4*>(a),
        reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(out), n4);
    done = n4 * 4;
  }
  if (done < n) {
    BinarySame<F><<<Blocks(n - done), kThreads, 0, stream>>>(
        f, a + done, b + done, out + done, n - done);
  }
  return cudaGetLastError();
}

#define SY_INSTANTIATE_BINARY(op, Functor, Types, flops, Attrs)          \
  template cudaError_t LaunchBinary<binary::Functor<float>>(             \
      binary::Functor<float>, const float*, const float*, float*, int64_t, \
      const BroadcastIndexing*, cudaStream_t);
SY_BINARY_ELEMENTWISE_OPS(SY_INSTANTIATE_BINARY)
#undef SY_INSTANTIATE_BINARY

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
