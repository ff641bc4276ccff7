#ifndef SWITCHYARD_OPS_COMPARISON_FUNCTORS_H_
#define SWITCHYARD_OPS_COMPARISON_FUNCTORS_H_

// The comparison ops (ops/comparison.cc), one functor template each over the
// operands' element type T, returning the output's bool byte (0 or 1):
//
//   SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const;
//
// Floats compare as IEEE does (NaN is unequal to everything, NaN < x and
// NaN > x are false), as numpy and ONNX do. Bool operands are read as their
// bytes (Stored<bool> is uint8_t), any byte but 0 being true, so a bool
// tensor from elsewhere still compares as bools; false < true. For the CPU's
// loops and CUDA device code alike; the reference backend keeps formulas of
// its own.
//
// SY_COMPARISON_OPS is the one list of them; every backend and the op
// definitions expand it:
//
//   #define REGISTER(op, Functor) ...
//   SY_COMPARISON_OPS(REGISTER)
//
// Plain C++ for nvcc too.

#include <cstdint>
#include <type_traits>

#include "ops/elementwise_list_types.h"
#include "ops/host_device.h"

// X(op name, functor template in namespace compare).
#define SY_COMPARISON_OPS(X)             \
  X("equal", Equal)                      \
  X("less", Less)                        \
  X("greater", Greater)                  \
  X("less_equal", LessEqual)             \
  X("greater_equal", GreaterEqual)

namespace switchyard {

// The element types comparison kernels take (bool as its bytes).
using ComparableTypes =
    ElementTypes<float, double, int64_t, int32_t, int8_t, uint8_t, bool>;

namespace compare {

// How a kernel holds an element of T.
template <typename T>
struct Storage {
  using type = T;
};
template <>
struct Storage<bool> {
  using type = uint8_t;
};
template <typename T>
using Stored = typename Storage<T>::type;

// The value compared: bools as true/false, whatever their byte.
template <typename T>
SY_HOST_DEVICE inline auto Value(Stored<T> v) {
  if constexpr (std::is_same<T, bool>::value) {
    return v != 0;
  } else {
    return v;
  }
}

template <typename T>
struct Equal {
  SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const {
    return Value<T>(a) == Value<T>(b);
  }
};
template <typename T>
struct Less {
  SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const {
    return Value<T>(a) < Value<T>(b);
  }
};
template <typename T>
struct Greater {
  SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const {
    return Value<T>(a) > Value<T>(b);
  }
};
template <typename T>
struct LessEqual {
  SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const {
    return Value<T>(a) <= Value<T>(b);
  }
};
template <typename T>
struct GreaterEqual {
  SY_HOST_DEVICE uint8_t operator()(Stored<T> a, Stored<T> b) const {
    return Value<T>(a) >= Value<T>(b);
  }
};

}  // namespace compare
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_COMPARISON_FUNCTORS_H_
