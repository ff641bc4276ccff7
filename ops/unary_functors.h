#ifndef SWITCHYARD_OPS_UNARY_FUNCTORS_H_
#define SWITCHYARD_OPS_UNARY_FUNCTORS_H_

// The unary elementwise ops (ops/unary_elementwise.cc), one functor each:
// its attributes already in the element type T and its formula as
//
//   SY_HOST_DEVICE T operator()(T x) const;
//
// for the CPU backend's scalar loops and CUDA device code alike (the CPU's
// floating types mostly run Eigen array forms of the same formulas,
// backends/cpu/kernels/elementwise_arrays.h). A functor with attributes
// also has a host-only `FromAttrs(const Attrs&)` that converts its typed
// attribute struct (ops/elementwise_attrs.h) to T; ops/functor_attrs.h
// calls it. The reference backend keeps formulas of its own.
//
// SY_UNARY_ELEMENTWISE_OPS is the one list of them; every backend and the
// op definitions expand it:
//
//   #define REGISTER(op, Functor, Types, flops, Attrs) ...
//   SY_UNARY_ELEMENTWISE_OPS(REGISTER)
//
// Plain C++ for nvcc too: no absl, no Eigen, no std::function.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/elementwise_list_types.h"
#include "ops/host_device.h"
#include "ops/wrapping_arithmetic.h"

// X(op name, functor template in namespace unary, element types
//   (elementwise_list_types.h), FLOPs per element, attribute struct or
//   NoAttrs). FLOPs rank the ops' costs for the profiler; they are not the
//   instructions of any one kernel.
#define SY_UNARY_ELEMENTWISE_OPS(X)                                   \
  X("sigmoid", Sigmoid, FloatingTypes, 4, NoAttrs)                    \
  X("erf", Erf, FloatingTypes, 8, NoAttrs)                            \
  X("gelu", Gelu, FloatingTypes, 12, NoAttrs)                         \
  X("sqrt", Sqrt, FloatingTypes, 1, NoAttrs)                          \
  X("exp", Exp, FloatingTypes, 4, NoAttrs)                            \
  X("log", Log, FloatingTypes, 4, NoAttrs)                            \
  X("floor", Floor, FloatingTypes, 1, NoAttrs)                        \
  X("ceil", Ceil, FloatingTypes, 1, NoAttrs)                          \
  X("round", Round, FloatingTypes, 1, NoAttrs)                        \
  X("tanh", Tanh, FloatingTypes, 8, NoAttrs)                          \
  X("sin", Sin, FloatingTypes, 8, NoAttrs)                            \
  X("cos", Cos, FloatingTypes, 8, NoAttrs)                            \
  X("tan", Tan, FloatingTypes, 8, NoAttrs)                            \
  X("asin", Asin, FloatingTypes, 8, NoAttrs)                          \
  X("acos", Acos, FloatingTypes, 8, NoAttrs)                          \
  X("atan", Atan, FloatingTypes, 8, NoAttrs)                          \
  X("sinh", Sinh, FloatingTypes, 8, NoAttrs)                          \
  X("cosh", Cosh, FloatingTypes, 8, NoAttrs)                          \
  X("asinh", Asinh, FloatingTypes, 8, NoAttrs)                        \
  X("acosh", Acosh, FloatingTypes, 8, NoAttrs)                        \
  X("atanh", Atanh, FloatingTypes, 8, NoAttrs)                        \
  X("neg", Neg, SignedTypes, 1, NoAttrs)                              \
  X("abs", Abs, NumericTypes, 1, NoAttrs)                             \
  X("reciprocal", Reciprocal, FloatingTypes, 1, NoAttrs)              \
  X("hard_sigmoid", HardSigmoid, FloatingTypes, 4, HardSigmoidAttrs)  \
  X("hard_swish", HardSwish, FloatingTypes, 5, NoAttrs)               \
  X("clip", Clip, NumericTypes, 2, ClipAttrs)                         \
  X("leaky_relu", LeakyRelu, FloatingTypes, 2, LeakyReluAttrs)

namespace switchyard {
namespace unary {

// min(max(v, low), high), NaN kept (comparisons with NaN are false); max
// wins when low > high, as ONNX's Clip.
template <typename T>
SY_HOST_DEVICE T Clamp(T v, T low, T high) {
  v = v < low ? low : v;
  return v > high ? high : v;
}

template <typename T>
struct Sigmoid {
  SY_HOST_DEVICE T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};
template <typename T>
struct Erf {
  SY_HOST_DEVICE T operator()(T x) const { return std::erf(x); }
};
// The exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))) (torch's default,
// ONNX Gelu with approximate "none"). Multiplying by 1/sqrt(2) rather than
// dividing by sqrt(2) differs by at most an ulp inside erf.
template <typename T>
struct Gelu {
  SY_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
};
template <typename T>
struct Sqrt {
  SY_HOST_DEVICE T operator()(T x) const { return std::sqrt(x); }
};
template <typename T>
struct Exp {
  SY_HOST_DEVICE T operator()(T x) const { return std::exp(x); }
};
template <typename T>
struct Log {
  SY_HOST_DEVICE T operator()(T x) const { return std::log(x); }
};
template <typename T>
struct Floor {
  SY_HOST_DEVICE T operator()(T x) const { return std::floor(x); }
};
template <typename T>
struct Ceil {
  SY_HOST_DEVICE T operator()(T x) const { return std::ceil(x); }
};
// Halves to even (ONNX Round, numpy.round): nearbyint in the default
// rounding mode.
template <typename T>
struct Round {
  SY_HOST_DEVICE T operator()(T x) const { return std::nearbyint(x); }
};
template <typename T>
struct Tanh {
  SY_HOST_DEVICE T operator()(T x) const { return std::tanh(x); }
};
// The trigonometric and hyperbolic functions and their inverses, as C's
// <cmath> (NaN outside the domain: asin(2), acosh(0.5)).
template <typename T>
struct Sin {
  SY_HOST_DEVICE T operator()(T x) const { return std::sin(x); }
};
template <typename T>
struct Cos {
  SY_HOST_DEVICE T operator()(T x) const { return std::cos(x); }
};
template <typename T>
struct Tan {
  SY_HOST_DEVICE T operator()(T x) const { return std::tan(x); }
};
template <typename T>
struct Asin {
  SY_HOST_DEVICE T operator()(T x) const { return std::asin(x); }
};
template <typename T>
struct Acos {
  SY_HOST_DEVICE T operator()(T x) const { return std::acos(x); }
};
template <typename T>
struct Atan {
  SY_HOST_DEVICE T operator()(T x) const { return std::atan(x); }
};
template <typename T>
struct Sinh {
  SY_HOST_DEVICE T operator()(T x) const { return std::sinh(x); }
};
template <typename T>
struct Cosh {
  SY_HOST_DEVICE T operator()(T x) const { return std::cosh(x); }
};
template <typename T>
struct Asinh {
  SY_HOST_DEVICE T operator()(T x) const { return std::asinh(x); }
};
template <typename T>
struct Acosh {
  SY_HOST_DEVICE T operator()(T x) const { return std::acosh(x); }
};
template <typename T>
struct Atanh {
  SY_HOST_DEVICE T operator()(T x) const { return std::atanh(x); }
};
// Integers wrap: -INT_MIN is INT_MIN.
template <typename T>
struct Neg {
  SY_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral<T>::value) {
      return wrapping::Neg(x);
    } else {
      return -x;
    }
  }
};
// Integers wrap: |INT_MIN| is INT_MIN.
template <typename T>
struct Abs {
  SY_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral<T>::value) {
      return x < T(0) ? wrapping::Neg(x) : x;
    } else {
      return std::fabs(x);
    }
  }
};
template <typename T>
struct Reciprocal {
  SY_HOST_DEVICE T operator()(T x) const { return T(1) / x; }
};
// max(0, min(1, alpha * x + beta)).
template <typename T>
struct HardSigmoid {
  T alpha, beta;
  template <typename Attrs>
  static HardSigmoid FromAttrs(const Attrs& a) {
    return {static_cast<T>(a.alpha), static_cast<T>(a.beta)};
  }
  SY_HOST_DEVICE T operator()(T x) const {
    return Clamp(alpha * x + beta, T(0), T(1));
  }
};
// x * max(0, min(1, x / 6 + 0.5)).
template <typename T>
struct HardSwish {
  SY_HOST_DEVICE T operator()(T x) const {
    return x * Clamp(x / T(6) + T(0.5), T(0), T(1));
  }
};

// An integer bound from a float one: rounded inward (min up, max down) and
// saturated at T's range, so -inf and +inf are no bound. Host only.
template <typename T>
T IntegerBound(double bound, bool is_min) {
  const double rounded = is_min ? std::ceil(bound) : std::floor(bound);
  if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(rounded);
}

// min(max(x, low), high); integer tensors round the bounds inward.
template <typename T>
struct Clip {
  T low, high;
  template <typename Attrs>
  static Clip FromAttrs(const Attrs& a) {
    if constexpr (std::is_floating_point<T>::value) {
      return {static_cast<T>(a.min), static_cast<T>(a.max)};
    } else {
      return {IntegerBound<T>(a.min, /*is_min=*/true),
              IntegerBound<T>(a.max, /*is_min=*/false)};
    }
  }
  SY_HOST_DEVICE T operator()(T x) const { return Clamp(x, low, high); }
};
// x < 0 ? alpha * x : x (one rounding).
template <typename T>
struct LeakyRelu {
  T alpha;
  template <typename Attrs>
  static LeakyRelu FromAttrs(const Attrs& a) {
    return {static_cast<T>(a.alpha)};
  }
  SY_HOST_DEVICE T operator()(T x) const { return x < T(0) ? alpha * x : x; }
};

// relu (ops/relu.cc) is not in the list: its op has its own definition and
// fusions (conv2d+relu, linear+relu); its kernels use this formula where
// they are scalar. x <= 0 is false for NaN, so NaN passes through.
template <typename T>
struct Relu {
  SY_HOST_DEVICE T operator()(T x) const { return x <= T(0) ? T(0) : x; }
};

}  // namespace unary
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_UNARY_FUNCTORS_H_
