#ifndef SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_
#define SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_

// One element of quantize_linear, dequantize_linear
// (ops/linear_quantization.cc) and qlinear_conv's requantization
// (ops/qlinear_conv.cc), the formulas every backend's kernels share so that
// they agree bit for bit: float32 arithmetic as ONNX Runtime's CPU kernels
// do it.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace switchyard {

// saturate(round_half_even(v) + zero_point); NaN becomes the type's
// minimum, as ONNX Runtime gives for float32 input. Branch-free, so that
// loops over it vectorize: adding and taking away 1.5 * 2^23 rounds v to
// an integer, ties to even (the default rounding mode), exactly wherever
// the result does not saturate; the clamp to [min - zero_point, max -
// zero_point] that follows saturates it (and a NaN, as the comparison with
// it is false). Rounding before clamping keeps every float operation
// unconditional, which GCC needs to vectorize the loop once the clamp's
// bounds are known constants. v must not be a product: the compiler could
// fuse it with the addition (FMA) and round only once.
template <typename Q>
inline Q SaturateRounded(float v, int32_t zero_point) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  const float zp = static_cast<float>(zero_point);
  const float low = static_cast<float>(std::numeric_limits<Q>::min()) - zp;
  const float high = static_cast<float>(std::numeric_limits<Q>::max()) - zp;
  float r = (v + kRound) - kRound;
  r = std::max(low, r);  // NaN too: (low < NaN) is false
  r = std::min(high, r);
  return static_cast<Q>(static_cast<int32_t>(r + zp));
}

// saturate(round_half_even(x / scale) + zero_point).
template <typename Q>
inline Q QuantizeElement(float x, float scale, int32_t zero_point) {
  return SaturateRounded<Q>(x / scale, zero_point);
}

// An int32 accumulator requantized as ONNX Runtime's QLinearConv does:
// saturate(round_half_even(float(acc) * multiplier) + zero_point), with
// multiplier = input scale * weight scale / output scale. The product is
// rounded to float before it is rounded to an integer (nearbyint keeps it
// from being fused with SaturateRounded's addition).
template <typename Q>
inline Q RequantizeElement(int32_t acc, float multiplier, int32_t zero_point) {
  return SaturateRounded<Q>(std::nearbyint(static_cast<float>(acc) * multiplier), zero_point);
}

// (q - zero_point) * scale.
template <typename Q>
inline float DequantizeElement(Q q, float scale, int32_t zero_point) {
  return static_cast<float>(static_cast<int32_t>(q) - zero_point) * scale;
}

// dynamic_quantize_linear's scale and zero point from the least and
// greatest elements of x (NaN left out; +inf and -inf when x is empty), as
// ONNX Runtime computes them: the range widened to hold 0,
//   scale = (max - min) / 255 (1 when max == min: all-zero data stays 0)
//   zero_point = round_half_even(clip(0 - min / scale, 0, 255))
// with 255 where that is NaN (an infinite minimum).
struct DynamicQuantization {
  float scale = 1;
  int32_t zero_point = 0;
};
inline DynamicQuantization DynamicQuantizationOf(float lowest, float highest) {
  const float lo = std::min(lowest, 0.0f);
  const float hi = std::max(highest, 0.0f);
  DynamicQuantization q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  float initial = 0.0f - lo / q.scale;
  if (initial != initial) initial = 255.0f;
  initial = std::min(std::max(initial, 0.0f), 255.0f);
  q.zero_point = static_cast<int32_t>(std::nearbyint(initial));
  return q;
}

// qlinear_add's scales and zero points.
struct QLinearAddParams {
  float a_scale = 1;
  int32_t a_zero_point = 0;
  float b_scale = 1;
  int32_t b_zero_point = 0;
  float y_scale = 1;
  int32_t y_zero_point = 0;
};

// qlinear_add over elements [begin, end) as ONNX Runtime's x86 kernel
// computes it, with the scale ratios instead of a division per element:
//   y = saturate(round_half_even(a * (a_scale / y_scale)
//                                + (b * (b_scale / y_scale) + offset)))
//   offset = y_zp - (a_scale / y_scale * a_zp + b_scale / y_scale * b_zp)
// It agrees with quantize(dequantize(a) + dequantize(b)) but on near ties.
// GCC fuses each multiply-add into an FMA where the target has one
// (x86-64-v3, every backend alike), as ONNX Runtime's kernel does; an
// explicit std::fma would keep the loop from vectorizing.
template <typename Q, typename Out>
inline void QLinearAddRange(const Q* a, const Q* b, Out* y, int64_t begin, int64_t end,
                            const QLinearAddParams& p) {
  const float ratio_a = p.a_scale / p.y_scale;
  const float ratio_b = p.b_scale / p.y_scale;
  const float offset =
      static_cast<float>(p.y_zero_point) - (ratio_a * static_cast<float>(p.a_zero_point) +
                                            ratio_b * static_cast<float>(p.b_zero_point));
#pragma omp simd
  for (int64_t i = begin; i < end; ++i) {
    const float v =
        static_cast<float>(a[i]) * ratio_a + (static_cast<float>(b[i]) * ratio_b + offset);
    y[i] = SaturateRounded<Out>(v, 0);
  }
}

// QLinearAddRange with a's and y's 8-bit types chosen at run time (true:
// uint8, false: int8).
template <typename Fn>
inline void WithQLinearAddTypes(bool a_unsigned, bool y_unsigned, const Fn& fn) {
  if (a_unsigned && y_unsigned) {
    fn(uint8_t(), uint8_t());
  } else if (a_unsigned) {
    fn(uint8_t(), int8_t());
  } else if (y_unsigned) {
    fn(int8_t(), uint8_t());
  } else {
    fn(int8_t(), int8_t());
  }
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_
