// Device code of cast among float32, float16, int32 and int64: one
// grid-stride kernel per (from, to) pair, by the rules of
// ops/elementwise_attrs.h's CastAttrs.

#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/cast.cuh"
#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "cuda_fp16.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

template <CastType kType>
struct Storage;
template <> struct Storage<CastType::kFloat32> { using T = float; };
template <> struct Storage<CastType::kFloat16> { using T = __half; };
template <> struct Storage<CastType::kInt32> { using T = int32_t; };
template <> struct Storage<CastType::kInt64> { using T = int64_t; };

// The integer targets' ranges (std::numeric_limits is host-only in nvcc
// without --expt-relaxed-constexpr).
template <typename I>
struct IntegerRange;
template <>
struct IntegerRange<int32_t> {
  static constexpr int32_t kLowest = INT32_MIN;
  static constexpr int32_t kMax = INT32_MAX;
};
template <>
struct IntegerRange<int64_t> {
  static constexpr int64_t kLowest = INT64_MIN;
  static constexpr int64_t kMax = INT64_MAX;
};

// Floating -> integer: NaN 0, truncation, saturation (as ops/ defines; a C++
// conversion out of range is undefined, here as on the host).
template <typename I>
__device__ __forceinline__ I FloatToInteger(float v) {
  if (v != v) return 0;
  if (v <= static_cast<float>(IntegerRange<I>::kLowest)) {
    return IntegerRange<I>::kLowest;
  }
  if (v >= static_cast<float>(IntegerRange<I>::kMax)) {
    return IntegerRange<I>::kMax;
  }
  return static_cast<I>(v);
}

template <typename To>
__device__ __forceinline__ To FromFloat(float v) {
  if constexpr (std::is_same_v<To, float>) return v;
  if constexpr (std::is_same_v<To, __half>) return __float2half_rn(v);
  if constexpr (std::is_integral_v<To>) return FloatToInteger<To>(v);
}

template <typename To>
__device__ __forceinline__ To FromInteger(int64_t v) {
  if constexpr (std::is_same_v<To, float>) return static_cast<float>(v);
  if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  }
  // Modulo 2^bits of the target.
  if constexpr (std::is_integral_v<To>) {
    return static_cast<To>(
        static_cast<std::make_unsigned_t<To>>(static_cast<uint64_t>(v)));
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* __restrict__ in, To* __restrict__ out,
                           int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) {
    if constexpr (std::is_same_v<From, To>) {
      out[i] = in[i];
    } else if constexpr (std::is_same_v<From, float>) {
      out[i] = FromFloat<To>(in[i]);
    } else if constexpr (std::is_same_v<From, __half>) {
      out[i] = FromFloat<To>(__half2float(in[i]));
    } else {
      out[i] = FromInteger<To>(static_cast<int64_t>(in[i]));
    }
  }
}

template <CastType kFrom, CastType kTo>
cudaError_t LaunchCastOf(const void* in, void* out, int64_t n,
                         cudaStream_t stream) {
  using From = typename Storage<kFrom>::T;
  using To = typename Storage<kTo>::T;
  CastKernel<From, To><<<Blocks(n), kThreads, 0, stream>>>(
      static_cast<const From*>(in), static_cast<To*>(out), n);
  return cudaGetLastError();
}

template <CastType kFrom>
cudaError_t LaunchCastFrom(const void* in, void* out, CastType to, int64_t n,
                           cudaStream_t stream) {
  switch (to) {
    case CastType::kFloat32:
      return LaunchCastOf<kFrom, CastType::kFloat32>(in, out, n, stream);
    case CastType::kFloat16:
      return LaunchCastOf<kFrom, CastType::kFloat16>(in, out, n, stream);
    case CastType::kInt32:
      return LaunchCastOf<kFrom, CastType::kInt32>(in, out, n, stream);
    case CastType::kInt64:
      return LaunchCastOf<kFrom, CastType::kInt64>(in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(const void* in, CastType from, void* out, CastType to,
                       int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (from) {
    case CastType::kFloat32:
      return LaunchCastFrom<CastType::kFloat32>(in, out, to, n, stream);
    case CastType::kFloat16:
      return LaunchCastFrom<CastType::kFloat16>(in, out, to, n, stream);
    case CastType::kInt32:
      return LaunchCastFrom<CastType::kInt32>(in, out, to, n, stream);
    case CastType::kInt64:
      return LaunchCastFrom<CastType::kInt64>(in, out, to, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
