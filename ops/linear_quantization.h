#ifndef SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_
#define SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_

// One element of quantize_linear and dequantize_linear
// (ops/linear_quantization.cc), the formulas every backend's kernels share
// so that they agree bit for bit: float32 arithmetic as ONNX Runtime's CPU
// kernels do it.

#include <cmath>
#include <cstdint>
#include <limits>

namespace switchyard {

// saturate(round_half_even(x / scale) + zero_point); NaN becomes the
// type's minimum, as ONNX Runtime gives for float32 input.
template <typename Q>
inline Q QuantizeElement(float x, float scale, int32_t zero_point) {
  constexpr float kLow = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float kHigh = static_cast<float>(std::numeric_limits<Q>::max());
  float v = std::nearbyint(x / scale) + static_cast<float>(zero_point);
  if (!(v >= kLow)) v = kLow;  // NaN too
  if (v > kHigh) v = kHigh;
  return static_cast<Q>(v);
}

// (q - zero_point) * scale.
template <typename Q>
inline float DequantizeElement(Q q, float scale, int32_t zero_point) {
  return static_cast<float>(static_cast<int32_t>(q) - zero_point) * scale;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_LINEAR_QUANTIZATION_H_
