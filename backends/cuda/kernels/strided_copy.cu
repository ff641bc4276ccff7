// The strided copy (strided_copy.cuh): one thread per element in
// grid-stride loops, elements moved as 1-, 2-, 4- or 8-byte words. Writes
// walk the destination in order (coalesced); reads follow the source's
// strides. (A transpose that moves the innermost dim reads strided; a
// shared-memory tiled variant would coalesce those reads too.)

#include "backends/cuda/kernels/strided_copy.cuh"

#include <cstdint>

#include "backends/cuda/kernels/element_word.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__global__ void StridedCopyKernel(T* __restrict__ dst, const T* __restrict__ src,
                                  StridedCopyParams p, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t rest = i, d_off = 0, s_off = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t index = rest % p.dims[d];
      rest /= p.dims[d];
      d_off += index * p.dst_strides[d];
      s_off += index * p.src_strides[d];
    }
    dst[d_off] = src[s_off];
  }
}

}  // namespace

cudaError_t LaunchStridedCopy(void* dst, const void* src, size_t element_size,
                              const StridedCopyParams& params,
                              cudaStream_t stream) {
  return WithElementWord(element_size, [&](auto word) {
    using T = decltype(word);
    const int64_t total = ViewElements(params.rank, params.dims);
    if (total <= 0) return cudaSuccess;
    StridedCopyKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
        static_cast<T*>(dst), static_cast<const T*>(src), params, total);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
