// Device code of the elementwise family: binary arithmetic with numpy
// broadcasting, unary ops and cast. Grid-stride loops over int64 indices;
// 16-byte vector loads for same-shape float32 operands when aligned. IEEE
// division and square root (nvcc's defaults, no fast math), so + - * / sqrt
// and reciprocal round exactly as the CPU does.

#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/elementwise_family_launch.h"
#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "cuda_fp16.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

bool Aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// ------------------------------------------------------------------ binary

template <BinaryOp kOp>
__device__ __forceinline__ float Binary(float a, float b) {
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kDiv) return a / b;
  return powf(a, b);
}

template <BinaryOp kOp>
__global__ void BinarySameVec(const float4* __restrict__ a,
                              const float4* __restrict__ b,
                              float4* __restrict__ out, int64_t n4) {
  SY_GRID_STRIDE_LOOP(i, n4) {
    const float4 x = a[i];
    const float4 y = b[i];
    out[i] = make_float4(Binary<kOp>(x.x, y.x), Binary<kOp>(x.y, y.y),
                         Binary<kOp>(x.z, y.z), Binary<kOp>(x.w, y.w));
  }
}

template <BinaryOp kOp>
__global__ void BinarySame(const float* __restrict__ a,
                           const float* __restrict__ b,
                           float* __restrict__ out, int64_t n) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = Binary<kOp>(a[i], b[i]); }
}

template <BinaryOp kOp>
__global__ void BinaryBroadcast(const float* __restrict__ a,
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
    out[i] = Binary<kOp>(a[ia], b[ib]);
  }
}

template <BinaryOp kOp>
cudaError_t Launch(const float* a, const float* b, float* out, int64_t n,
                   const BroadcastIndexing* broadcast, cudaStream_t stream) {
  if (broadcast != nullptr) {
    BinaryBroadcast<kOp><<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n,
                                                             *broadcast);
    return cudaGetLastError();
  }
  int64_t done = 0;
  if (Aligned16(a) && Aligned16(b) && Aligned16(out) && n >= 4) {
    const int64_t n4 = n / 4;
    BinarySameVec<kOp><<<Blocks(n4), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
        reinterpret_cast<float4*>(out), n4);
    done = n4 * 4;
  }
  if (done < n) {
    BinarySame<kOp><<<Blocks(n - done), kThreads, 0, stream>>>(
        a + done, b + done, out + done, n - done);
  }
  return cudaGetLastError();
}

// ------------------------------------------------------------------- unary

// min(max(v, low), high) with NaN kept (comparisons with NaN are false).
__device__ __forceinline__ float Clamp(float v, float low, float high) {
  v = v < low ? low : v;
  return v > high ? high : v;
}

template <UnaryOp kOp>
__device__ __forceinline__ float Unary(float x, const UnaryCoefficients& c) {
  if constexpr (kOp == UnaryOp::kSigmoid) return 1.0f / (1.0f + expf(-x));
  if constexpr (kOp == UnaryOp::kErf) return erff(x);
  if constexpr (kOp == UnaryOp::kSqrt) return sqrtf(x);
  if constexpr (kOp == UnaryOp::kExp) return expf(x);
  if constexpr (kOp == UnaryOp::kTanh) return tanhf(x);
  if constexpr (kOp == UnaryOp::kNeg) return -x;
  if constexpr (kOp == UnaryOp::kAbs) return fabsf(x);
  if constexpr (kOp == UnaryOp::kReciprocal) return 1.0f / x;
  if constexpr (kOp == UnaryOp::kHardSigmoid) {
    return Clamp(c.alpha * x + c.beta, 0.0f, 1.0f);
  }
  if constexpr (kOp == UnaryOp::kHardSwish) {
    return x * Clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
  }
  if constexpr (kOp == UnaryOp::kClip) return Clamp(x, c.low, c.high);
  // leaky_relu: one rounding (alpha * x), as on the CPU.
  return x < 0.0f ? c.alpha * x : x;
}

template <UnaryOp kOp>
__global__ void UnaryKernel(const float* __restrict__ in,
                            float* __restrict__ out, int64_t n,
                            UnaryCoefficients c) {
  SY_GRID_STRIDE_LOOP(i, n) { out[i] = Unary<kOp>(in[i], c); }
}

template <UnaryOp kOp>
cudaError_t LaunchUnaryOf(const float* in, float* out, int64_t n,
                          UnaryCoefficients c, cudaStream_t stream) {
  UnaryKernel<kOp><<<Blocks(n), kThreads, 0, stream>>>(in, out, n, c);
  return cudaGetLastError();
}

// -------------------------------------------------------------------- cast

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

cudaError_t LaunchBinary(BinaryOp op, const float* a, const float* b,
                         float* out, int64_t n,
                         const BroadcastIndexing* broadcast,
                         cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (broadcast != nullptr &&
      (broadcast->rank < 1 || broadcast->rank > kMaxBroadcastRank)) {
    return cudaErrorInvalidValue;
  }
  switch (op) {
    case BinaryOp::kAdd: return Launch<BinaryOp::kAdd>(a, b, out, n, broadcast, stream);
    case BinaryOp::kSub: return Launch<BinaryOp::kSub>(a, b, out, n, broadcast, stream);
    case BinaryOp::kMul: return Launch<BinaryOp::kMul>(a, b, out, n, broadcast, stream);
    case BinaryOp::kDiv: return Launch<BinaryOp::kDiv>(a, b, out, n, broadcast, stream);
    case BinaryOp::kPow: return Launch<BinaryOp::kPow>(a, b, out, n, broadcast, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnary(UnaryOp op, const float* in, float* out, int64_t n,
                        UnaryCoefficients c, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (op) {
#define SY_UNARY_CASE(name) \
  case UnaryOp::name: return LaunchUnaryOf<UnaryOp::name>(in, out, n, c, stream);
    SY_UNARY_CASE(kSigmoid)
    SY_UNARY_CASE(kErf)
    SY_UNARY_CASE(kSqrt)
    SY_UNARY_CASE(kExp)
    SY_UNARY_CASE(kTanh)
    SY_UNARY_CASE(kNeg)
    SY_UNARY_CASE(kAbs)
    SY_UNARY_CASE(kReciprocal)
    SY_UNARY_CASE(kHardSigmoid)
    SY_UNARY_CASE(kHardSwish)
    SY_UNARY_CASE(kClip)
    SY_UNARY_CASE(kLeakyRelu)
#undef SY_UNARY_CASE
  }
  return cudaErrorInvalidValue;
}

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
