// gather (gather.cuh): one thread per output element over [outer, count,
// inner]; an index out of range is never read through (its element is
// zeroed and its position reported).

#include "backends/cuda/kernels/gather.cuh"

#include <cstdint>

#include "backends/cuda/kernels/element_word.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__global__ void GatherKernel(T* __restrict__ dst, const T* __restrict__ data,
                             const void* indices, bool indices_int64,
                             int64_t n, int64_t count, int64_t inner,
                             unsigned long long* bad, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    const int64_t c = i % inner;
    const int64_t k = (i / inner) % count;
    const int64_t o = i / (inner * count);
    int64_t index = indices_int64 ? static_cast<const int64_t*>(indices)[k]
                                  : static_cast<const int32_t*>(indices)[k];
    if (index < -n || index >= n) {
      if (bad != nullptr) atomicMin(bad, static_cast<unsigned long long>(k));
      dst[i] = T(0);
      continue;
    }
    if (index < 0) index += n;
    dst[i] = data[(o * n + index) * inner + c];
  }
}

}  // namespace

cudaError_t LaunchGather(void* dst, const void* data, const void* indices,
                         bool indices_int64, int64_t outer, int64_t n,
                         int64_t count, int64_t inner, size_t element_size,
                         unsigned long long* bad_position,
                         cudaStream_t stream) {
  return WithElementWord(element_size, [&](auto word) {
    using T = decltype(word);
    const int64_t total = outer * count * inner;
    if (total <= 0) return cudaSuccess;
    GatherKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
        static_cast<T*>(dst), static_cast<const T*>(data), indices,
        indices_int64, n, count, inner, bad_position, total);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
