// The shape ops' device code (shape_launch.h): one thread per output
// element in grid-stride loops, elements moved as 1-, 2-, 4- or 8-byte
// words. Writes walk the output in order (coalesced); reads follow the op's
// strides. (A transpose that moves the innermost dim reads strided; a
// shared-memory tiled variant would coalesce those reads too.)

#include <cstdint>
#include <cstring>

#include "backends/cuda/kernels/grid.h"
#include "backends/cuda/kernels/shape_launch.h"

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

// ops/shape_geometry.h PadSourceIndex, on the device.
__device__ int64_t PadSource(int mode, int64_t out, int64_t begin, int64_t n) {
  const int64_t i = out - begin;
  if (i >= 0 && i < n) return i;
  if (mode == 0) return -1;             // constant
  if (mode == 2) return i < 0 ? 0 : n - 1;  // edge
  if (n == 1) return 0;                 // reflect
  const int64_t period = 2 * (n - 1);
  int64_t r = i % period;
  if (r < 0) r += period;
  return r < n ? r : period - r;
}

template <typename T>
__global__ void PadKernel(T* __restrict__ dst, const T* __restrict__ src,
                          PadParams p, T fill, int64_t total) {
  SY_GRID_STRIDE_LOOP(i, total) {
    int64_t rest = i, offset = 0, stride = 1;
    bool filled = false;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t o = rest % p.out_dims[d];
      rest /= p.out_dims[d];
      const int64_t s = PadSource(p.mode, o, p.begins[d], p.in_dims[d]);
      filled = filled || s < 0;
      offset += s * stride;
      stride *= p.in_dims[d];
    }
    dst[i] = filled ? fill : src[offset];
  }
}

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

int64_t Total(int rank, const int64_t* dims) {
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= dims[d];
  return total;
}

template <typename T>
cudaError_t StridedCopyAs(void* dst, const void* src,
                          const StridedCopyParams& p, cudaStream_t stream) {
  const int64_t total = Total(p.rank, p.dims);
  if (total <= 0) return cudaSuccess;
  StridedCopyKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(src), p, total);
  return cudaGetLastError();
}

template <typename T>
cudaError_t PadAs(void* dst, const void* src, const PadParams& p,
                  cudaStream_t stream) {
  const int64_t total = Total(p.rank, p.out_dims);
  if (total <= 0) return cudaSuccess;
  // The fill's low sizeof(T) bytes (little-endian, as the host wrote them).
  T fill;
  std::memcpy(&fill, &p.fill, sizeof(T));
  PadKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(src), p, fill, total);
  return cudaGetLastError();
}

template <typename T>
cudaError_t GatherAs(void* dst, const void* data, const void* indices,
                     bool indices_int64, int64_t outer, int64_t n,
                     int64_t count, int64_t inner, unsigned long long* bad,
                     cudaStream_t stream) {
  const int64_t total = outer * count * inner;
  if (total <= 0) return cudaSuccess;
  GatherKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(data), indices,
      indices_int64, n, count, inner, bad, total);
  return cudaGetLastError();
}

template <typename T>
cudaError_t WhereAs(void* dst, const uint8_t* c, const void* x, const void* y,
                    const WhereParams& p, cudaStream_t stream) {
  const int64_t total = Total(p.rank, p.dims);
  if (total <= 0) return cudaSuccess;
  WhereKernel<T><<<Blocks(total), kThreads, 0, stream>>>(
      static_cast<T*>(dst), c, static_cast<const T*>(x),
      static_cast<const T*>(y), p, total);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(void* dst, const void* src, size_t element_size,
                              const StridedCopyParams& params,
                              cudaStream_t stream) {
  switch (element_size) {
    case 1: return StridedCopyAs<uint8_t>(dst, src, params, stream);
    case 2: return StridedCopyAs<uint16_t>(dst, src, params, stream);
    case 4: return StridedCopyAs<uint32_t>(dst, src, params, stream);
    case 8: return StridedCopyAs<uint64_t>(dst, src, params, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchPad(void* dst, const void* src, size_t element_size,
                      const PadParams& params, cudaStream_t stream) {
  switch (element_size) {
    case 1: return PadAs<uint8_t>(dst, src, params, stream);
    case 2: return PadAs<uint16_t>(dst, src, params, stream);
    case 4: return PadAs<uint32_t>(dst, src, params, stream);
    case 8: return PadAs<uint64_t>(dst, src, params, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchGather(void* dst, const void* data, const void* indices,
                         bool indices_int64, int64_t outer, int64_t n,
                         int64_t count, int64_t inner, size_t element_size,
                         unsigned long long* bad_position,
                         cudaStream_t stream) {
  switch (element_size) {
    case 1:
      return GatherAs<uint8_t>(dst, data, indices, indices_int64, outer, n,
                               count, inner, bad_position, stream);
    case 2:
      return GatherAs<uint16_t>(dst, data, indices, indices_int64, outer, n,
                                count, inner, bad_position, stream);
    case 4:
      return GatherAs<uint32_t>(dst, data, indices, indices_int64, outer, n,
                                count, inner, bad_position, stream);
    case 8:
      return GatherAs<uint64_t>(dst, data, indices, indices_int64, outer, n,
                                count, inner, bad_position, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchWhere(void* dst, const uint8_t* condition, const void* x,
                        const void* y, size_t element_size,
                        const WhereParams& params, cudaStream_t stream) {
  switch (element_size) {
    case 1: return WhereAs<uint8_t>(dst, condition, x, y, params, stream);
    case 2: return WhereAs<uint16_t>(dst, condition, x, y, params, stream);
    case 4: return WhereAs<uint32_t>(dst, condition, x, y, params, stream);
    case 8: return WhereAs<uint64_t>(dst, condition, x, y, params, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
