#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_ARRAYS_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_ARRAYS_H_

// Eigen array forms of the elementwise functors (ops/unary_functors.h,
// ops/binary_functors.h) for the CPU's float32 and float64 kernels: whole
// runs as one vectorised expression. An overload of UnaryArray or
// BinaryArrays per functor; a functor without one (and every integer type)
// runs its scalar operator() in a loop:
//
//   if constexpr (kHasUnaryArray<F, T>) y = UnaryArray(f, x); else loop
//
// Each form computes what the functor's formula does, element for element,
// NaN included (hence MaxKeepNaN and MinKeepNaN).

#include <cmath>
#include <type_traits>
#include <utility>

#include "Eigen/Core"
#include "ops/binary_functors.h"
#include "ops/unary_functors.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace switchyard {
namespace cpu {

template <typename T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

// max(x, v) and min(x, v), NaN when x is NaN (Eigen's default is
// whichever operand the instruction picks).
template <typename X, typename T>
auto MaxKeepNaN(const X& x, T v) {
  return x.binaryExpr(Array<T>::Constant(x.size(), v),
                      Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
}
template <typename X, typename T>
auto MinKeepNaN(const X& x, T v) {
  return x.binaryExpr(Array<T>::Constant(x.size(), v),
                      Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
}

// ------------------------------------------------------------------- unary

// Not Eigen's logistic(): its float approximation loses relative accuracy
// for large negative x (1e-4 at x = -6.4).
template <typename T, typename X>
auto UnaryArray(const unary::Sigmoid<T>&, const X& x) {
  return T(1) / (T(1) + (-x).exp());
}
template <typename T, typename X>
auto UnaryArray(const unary::Erf<T>&, const X& x) { return x.erf(); }
// Eigen's vectorised erf, as the Erf form above; the same formula as the
// functor, so the array and scalar paths agree.
template <typename T, typename X>
auto UnaryArray(const unary::Gelu<T>&, const X& x) {
  return T(0.5) * x * (T(1) + (x * T(0.70710678118654752440)).erf());
}
// Not Eigen's sqrt(): with EIGEN_FAST_MATH it is rsqrt plus a Newton step,
// off by an ulp; std::sqrt is correctly rounded.
template <typename T, typename X>
auto UnaryArray(const unary::Sqrt<T>&, const X& x) {
  return x.unaryExpr([](T v) { return std::sqrt(v); });
}
template <typename T, typename X>
auto UnaryArray(const unary::Exp<T>&, const X& x) { return x.exp(); }
template <typename T, typename X>
auto UnaryArray(const unary::Tanh<T>&, const X& x) { return x.tanh(); }
template <typename T, typename X>
auto UnaryArray(const unary::Neg<T>&, const X& x) { return -x; }
template <typename T, typename X>
auto UnaryArray(const unary::Abs<T>&, const X& x) { return x.abs(); }
template <typename T, typename X>
auto UnaryArray(const unary::Reciprocal<T>&, const X& x) { return T(1) / x; }
template <typename T, typename X>
auto UnaryArray(const unary::HardSigmoid<T>& f, const X& x) {
  return MinKeepNaN(MaxKeepNaN(x * f.alpha + f.beta, T(0)), T(1));
}
template <typename T, typename X>
auto UnaryArray(const unary::HardSwish<T>&, const X& x) {
  return x * MinKeepNaN(MaxKeepNaN(x / T(6) + T(0.5), T(0)), T(1));
}
// max wins when low > high, as ONNX's min(max(x, low), high).
template <typename T, typename X>
auto UnaryArray(const unary::Clip<T>& f, const X& x) {
  return MinKeepNaN(MaxKeepNaN(x, f.low), f.high);
}
// x >= 0 adds alpha * 0; x < 0 adds to 0: each one rounding.
template <typename T, typename X>
auto UnaryArray(const unary::LeakyRelu<T>& f, const X& x) {
  return MaxKeepNaN(x, T(0)) + f.alpha * MinKeepNaN(x, T(0));
}

template <typename F, typename T, typename = void>
struct HasUnaryArray : std::false_type {};
template <typename F, typename T>
struct HasUnaryArray<F, T,
                     std::void_t<decltype(UnaryArray(
                         std::declval<const F&>(),
                         std::declval<const Eigen::Map<const Array<T>>&>()))>>
    : std::true_type {};
// Whether F at floating type T has an array form.
template <typename F, typename T>
inline constexpr bool kHasUnaryArray =
    std::is_floating_point_v<T> && HasUnaryArray<F, T>::value;

// ------------------------------------------------------------------ binary

template <typename T, typename X, typename Y>
auto BinaryArrays(const binary::Add<T>&, const X& x, const Y& y) { return x + y; }
template <typename T, typename X, typename Y>
auto BinaryArrays(const binary::Sub<T>&, const X& x, const Y& y) { return x - y; }
template <typename T, typename X, typename Y>
auto BinaryArrays(const binary::Mul<T>&, const X& x, const Y& y) { return x * y; }
template <typename T, typename X, typename Y>
auto BinaryArrays(const binary::Div<T>&, const X& x, const Y& y) { return x / y; }
template <typename T, typename X, typename Y>
auto BinaryArrays(const binary::Pow<T>&, const X& x, const Y& y) {
  return x.binaryExpr(y, [](T a, T b) { return std::pow(a, b); });
}

template <typename F, typename T, typename = void>
struct HasBinaryArrays : std::false_type {};
template <typename F, typename T>
struct HasBinaryArrays<
    F, T,
    std::void_t<decltype(BinaryArrays(
        std::declval<const F&>(),
        std::declval<const Eigen::Map<const Array<T>>&>(),
        std::declval<const Eigen::Map<const Array<T>>&>()))>>
    : std::true_type {};
// Whether F at floating type T has an array form.
template <typename F, typename T>
inline constexpr bool kHasBinaryArrays =
    std::is_floating_point_v<T> && HasBinaryArrays<F, T>::value;

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_ARRAYS_H_
