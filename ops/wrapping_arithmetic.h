#ifndef SWITCHYARD_OPS_WRAPPING_ARITHMETIC_H_
#define SWITCHYARD_OPS_WRAPPING_ARITHMETIC_H_

// Integer arithmetic with defined overflow for the elementwise functors
// (ops/unary_functors.h, ops/binary_functors.h), on the host and in CUDA
// device code: signed overflow is undefined in C++, so sums, products and
// negations go through the unsigned type and wrap modulo 2^bits, as numpy
// and ONNX Runtime do.
//
//   int32_t m = wrapping::Add(INT32_MAX, 1);  // INT32_MIN

#include <cstdint>
#include <type_traits>

#include "ops/host_device.h"

namespace switchyard {
namespace wrapping {

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
SY_HOST_DEVICE T Add(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) +
                        static_cast<Unsigned<T>>(b));
}
template <typename T>
SY_HOST_DEVICE T Sub(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) -
                        static_cast<Unsigned<T>>(b));
}
// uint8 * uint8 promotes to int and fits; wider types stay unsigned.
template <typename T>
SY_HOST_DEVICE T Mul(T a, T b) {
  using U = std::conditional_t<(sizeof(T) < sizeof(int)), unsigned int,
                               Unsigned<T>>;
  return static_cast<T>(static_cast<U>(static_cast<Unsigned<T>>(a)) *
                        static_cast<U>(static_cast<Unsigned<T>>(b)));
}
template <typename T>
SY_HOST_DEVICE T Neg(T a) {
  return static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(a));
}
// Truncates toward zero; the caller rules out b == 0. MIN / -1 wraps to MIN.
template <typename T>
SY_HOST_DEVICE T Div(T a, T b) {
  if (std::is_signed<T>::value && b == static_cast<T>(-1)) return Neg(a);
  return static_cast<T>(a / b);
}
// a^b by squaring, wrapping. Negative b: 1 and -1 keep their magnitude,
// anything else truncates to 0 (0^negative too; the caller refuses it).
template <typename T>
SY_HOST_DEVICE T Pow(T a, T b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (std::is_signed<T>::value && a == static_cast<T>(-1)) {
      return (b & 1) ? a : T(1);
    }
    return 0;
  }
  T result = 1;
  T base = a;
  for (auto e = static_cast<Unsigned<T>>(b); e != 0; e >>= 1) {
    if (e & 1) result = Mul(result, base);
    base = Mul(base, base);
  }
  return result;
}

}  // namespace wrapping
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_WRAPPING_ARITHMETIC_H_
