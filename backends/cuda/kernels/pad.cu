// pad (pad.cuh): one thread per output element, which finds its input
// element per dim by the mode's ops/pad_geometry.h function, or writes the
// fill. The mode is a template argument, so no element branches on it.

#include "backends/cuda/kernels/pad.cuh"

#include <cstdint>
#include <cstring>

#include "backends/cuda/kernels/element_word.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/pad_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

struct ConstantSource {
  __device__ int64_t operator()(int64_t o, int64_t begin, int64_t n) const {
    return ConstantPadSource(o, begin, n);
  }
};
struct ReflectSource {
  __device__ int64_t operator()(int64_t o, int64_t begin, int64_t n) const {
    return ReflectPadSource(o, begin, n);
  }
};
struct EdgeSource {
  __device__ int64_t operator()(int64_t o, int64_t begin, int64_t n) const {
    return EdgePadSource(o, begin, n);
  }
};

template <typename T, typename Source>
__global__ void PadKernel(T* __restrict__ dst, const T* __restrict__ src,
                          PadParams p, T fill, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t rest = i, offset = 0, stride = 1;
    bool filled = false;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t o = rest % p.out_dims[d];
      rest /= p.out_dims[d];
      const int64_t s = Source()(o, p.begins[d], p.in_dims[d]);
      filled = filled || s < 0;
      offset += s * stride;
      stride *= p.in_dims[d];
    }
    dst[i] = filled ? fill : src[offset];
  }
}

template <typename T, typename Source>
cudaError_t LaunchPadAs(void* dst, const void* src, const PadParams& p,
                        int64_t total, cudaStream_t stream) {
  // The fill's low sizeof(T) bytes (little-endian, as the host wrote them).
  T fill;
  std::memcpy(&fill, &p.fill, sizeof(T));
  PadKernel<T, Source><<<Blocks(total), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(src), p, fill, total);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPad(void* dst, const void* src, size_t element_size,
                      const PadParams& params, cudaStream_t stream) {
  return WithElementWord(element_size, [&](auto word) {
    using T = decltype(word);
    const int64_t total = ViewElements(params.rank, params.out_dims);
    if (total <= 0) return cudaSuccess;
    switch (params.mode) {
      case 1:
        return LaunchPadAs<T, ReflectSource>(dst, src, params, total, stream);
      case 2:
        return LaunchPadAs<T, EdgeSource>(dst, src, params, total, stream);
      default:
        return LaunchPadAs<T, ConstantSource>(dst, src, params, total, stream);
    }
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
