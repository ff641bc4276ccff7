// where (where.cuh): one thread per output element, each operand read at
// its own (broadcast) strides.

#include "backends/cuda/kernels/where.cuh"

#include <cstdint>

#include "backends/cuda/kernels/element_word.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__global__ void WhereKernel(T* __restrict__ dst, const uint8_t* __restrict__ c,
                            const T* __restrict__ x, const T* __restrict__ y,
                            WhereParams p, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t rest = i, oc = 0, ox = 0, oy = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t index = rest % p.dims[d];
      rest /= p.dims[d];
      oc += index * p.strides[0][d];
      ox += index * p.strides[1][d];
      oy += index * p.strides[2][d];
    }
    dst[i] = c[oc] != 0 ? x[ox] : y[oy];
  }
}

}  // namespace

cudaError_t LaunchWhere(void* dst, const uint8_t* condition, const void* x,
                        const void* y, size_t element_size,
                        const WhereParams& params, cudaStream_t stream) {
  return WithElementWord(element_size, [&](auto word) {
    using T = decltype(word);
    const int64_t total = ViewElements(params.rank, params.dims);
    if (total <= 0) return cudaSuccess;
    WhereKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
        static_cast<T*>(dst), condition, static_cast<const T*>(x),
        static_cast<const T*>(y), params, total);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
