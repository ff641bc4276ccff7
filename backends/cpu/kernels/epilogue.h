#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_

#include <cstdint>

#include "Eigen/Core"

namespace switchyard {
namespace cpu {

// What the conv2d and linear kernels apply to each output block right after
// its GEMM, while the block is still in cache: the bias, then the
// activation of a fused partition (cpu_fusion.cc): relu, or clip (ReLU6 and
// the like). None is the plain op.
struct Activation {
  enum class Kind { kNone, kRelu, kClip };
  Kind kind = Kind::kNone;
  float low = 0, high = 0;  // kClip's bounds

  static Activation None() { return {}; }
  static Activation Relu() { return {Kind::kRelu, 0, 0}; }
  static Activation Clip(float low, float high) { return {Kind::kClip, low, high}; }
  bool none() const { return kind == Kind::kNone; }
};

// x + bias, then the activation, on any Eigen array expression. The same
// formulas as the relu and clip kernels, so fused and unfused agree bit for
// bit: relu is max(x, 0); clip gives ops/unary_functors.h's Clamp (x < low ?
// low : x, then > high ? high : x; NaN stays NaN).
template <typename Array>
void ApplyActivation(Array&& r, const Activation& activation) {
  switch (activation.kind) {
    case Activation::Kind::kNone:
      return;
    case Activation::Kind::kRelu:
      r = r.max(0.0f);
      return;
    case Activation::Kind::kClip:
      // Eigen's max and min keep std::max/min's operand order (a NaN x
      // stays NaN, -0 stays -0, high wins over a larger low): Clamp's
      // results, vectorised.
      r = r.max(activation.low).min(activation.high);
      return;
  }
}

// One output row of `n` values sharing one bias (conv2d: a channel's row of
// pixels): row = act(row + *bias). `bias` may be null (no bias).
inline void FinishRow(float* row, int64_t n, const float* bias,
                      const Activation& activation) {
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  if (bias != nullptr) r += *bias;
  ApplyActivation(r, activation);
}

// One output row of `n` values with a bias per value (linear: one sample's
// features): row[j] = act(row[j] + bias[j]). `bias` may be null.
inline void FinishRowPerColumn(float* row, int64_t n, const float* bias,
                               const Activation& activation) {
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  if (bias != nullptr) r += Eigen::Map<const Eigen::ArrayXf>(bias, n);
  ApplyActivation(r, activation);
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_EPILOGUE_H_
