#ifndef SWITCHYARD_OPS_BINARY_FUNCTORS_H_
#define SWITCHYARD_OPS_BINARY_FUNCTORS_H_

// The binary arithmetic ops (ops/binary_elementwise.cc), one functor each:
// its attributes (if any) already in the element type T and its formula as
//
//   SY_HOST_DEVICE T operator()(T a, T b) const;
//
// for the CPU backend's scalar loops and CUDA device code alike (the CPU's
// floating types run Eigen array forms, backends/cpu/kernels/
// elementwise_arrays.h). Integers wrap on overflow (ops/wrapping_arithmetic.h).
// An op with operands that have no integer result (a division by zero) says
// so with
//
//   static constexpr const char* kNoValue = "integer division by zero";
//   SY_HOST_DEVICE static bool NoValue(T a, T b);  // operator() returns 0
//
// which the kernels turn into a run-time InvalidArgument. A functor with
// attributes has a host-only `FromAttrs(const Attrs&)`, as in
// ops/unary_functors.h. The reference backend keeps formulas of its own.
//
// SY_BINARY_ELEMENTWISE_OPS is the one list of them; every backend and the
// op definitions expand it. Plain C++ for nvcc too.

#include <cmath>
#include <type_traits>

#include "ops/elementwise_list_types.h"
#include "ops/host_device.h"
#include "ops/wrapping_arithmetic.h"

// X(op name, functor template in namespace binary, element types of the
// kernels (elementwise_list_types.h; the op itself accepts every numeric
// dtype), FLOPs per element, attribute struct or NoAttrs).
#define SY_BINARY_ELEMENTWISE_OPS(X)                       \
  X("add", Add, NumericTypes, 1, NoAttrs)                  \
  X("sub", Sub, NumericTypes, 1, NoAttrs)                  \
  X("mul", Mul, NumericTypes, 1, NoAttrs)                  \
  X("div", Div, NumericTypes, 1, NoAttrs)                  \
  X("pow", Pow, FloatingAndWideIntegerTypes, 1, NoAttrs)   \
  X("mod", Mod, NumericTypes, 2, ModAttrs)                 \
  X("max", Max, NumericTypes, 1, NoAttrs)                  \
  X("min", Min, NumericTypes, 1, NoAttrs)

namespace switchyard {
namespace binary {

template <typename T>
struct Add {
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return wrapping::Add(a, b);
    } else {
      return a + b;
    }
  }
};
template <typename T>
struct Sub {
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return wrapping::Sub(a, b);
    } else {
      return a - b;
    }
  }
};
template <typename T>
struct Mul {
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return wrapping::Mul(a, b);
    } else {
      return a * b;
    }
  }
};
// Integer division truncates toward zero (as C++); floats divide by zero
// into infinities.
template <typename T>
struct Div {
  static constexpr const char* kNoValue = "integer division by zero";
  SY_HOST_DEVICE static bool NoValue(T a, T b) {
    return std::is_integral<T>::value && b == T(0);
  }
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return b == T(0) ? T(0) : wrapping::Div(a, b);
    } else {
      return a / b;
    }
  }
};
// Integer powers by squaring; a negative exponent truncates (1 and -1 keep
// their magnitude).
template <typename T>
struct Pow {
  static constexpr const char* kNoValue = "0 to a negative integer power";
  SY_HOST_DEVICE static bool NoValue(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
      return a == T(0) && b < T(0);
    } else {
      return false;
    }
  }
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return wrapping::Pow(a, b);
    } else {
      return std::pow(a, b);
    }
  }
};

// The remainder of a / b: with the divisor's sign (fmod false, Python's %)
// or the dividend's (fmod true, C's fmod). MIN % -1 is 0 (C++ leaves it
// undefined).
template <typename T>
struct Mod {
  bool fmod = false;
  template <typename A>
  static Mod FromAttrs(const A& a) {
    return {a.fmod != 0};
  }
  static constexpr const char* kNoValue = "integer modulo by zero";
  SY_HOST_DEVICE static bool NoValue(T a, T b) {
    return std::is_integral<T>::value && b == T(0);
  }
  SY_HOST_DEVICE T operator()(T a, T b) const {
    T r;
    if constexpr (std::is_integral<T>::value) {
      if (b == T(0)) return T(0);
      if (std::is_signed<T>::value && b == static_cast<T>(-1)) return T(0);
      r = static_cast<T>(a % b);
    } else {
      r = std::fmod(a, b);
    }
    // The sum stays within T: |r| < |b| and the signs differ.
    if (!fmod && r != T(0) && ((r < T(0)) != (b < T(0)))) {
      r = static_cast<T>(r + b);
    }
    return r;
  }
};

// NaN's test on host and device alike (x != x only for NaN); never true
// for integers.
template <typename T>
SY_HOST_DEVICE bool IsNaN(T x) {
  if constexpr (std::is_floating_point<T>::value) {
    return x != x;
  } else {
    return false;
  }
}

// The larger (Max) or smaller (Min) operand; NaN when either is NaN, as
// numpy's maximum and minimum (ONNX's Max and Min).
template <typename T>
struct Max {
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if (IsNaN(a) || IsNaN(b)) return IsNaN(a) ? a : b;
    return a < b ? b : a;
  }
};
template <typename T>
struct Min {
  SY_HOST_DEVICE T operator()(T a, T b) const {
    if (IsNaN(a) || IsNaN(b)) return IsNaN(a) ? a : b;
    return b < a ? b : a;
  }
};

}  // namespace binary
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_BINARY_FUNCTORS_H_
