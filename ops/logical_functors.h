#ifndef SWITCHYARD_OPS_LOGICAL_FUNCTORS_H_
#define SWITCHYARD_OPS_LOGICAL_FUNCTORS_H_

// The logical ops on bool tensors (ops/logical.cc), one functor each over
// the elements' bytes: any byte but 0 reads as true, and every result is 0
// or 1, so a bool tensor that came from elsewhere (a file, a cast of raw
// bytes) still gives bools. For the CPU's loops and CUDA device code alike;
// the reference backend keeps formulas of its own.
//
// SY_LOGICAL_BINARY_OPS is the one list of the two-operand ones; every
// backend and the op definitions expand it:
//
//   #define REGISTER(op, Functor) ...
//   SY_LOGICAL_BINARY_OPS(REGISTER)
//
// Plain C++ for nvcc too.

#include <cstdint>

#include "ops/host_device.h"

// X(op name, functor in namespace logical).
#define SY_LOGICAL_BINARY_OPS(X) \
  X("logical_and", And)          \
  X("logical_or", Or)            \
  X("logical_xor", Xor)

namespace switchyard {
namespace logical {

struct Not {
  SY_HOST_DEVICE uint8_t operator()(uint8_t a) const { return a == 0; }
};
struct And {
  SY_HOST_DEVICE uint8_t operator()(uint8_t a, uint8_t b) const {
    return a != 0 && b != 0;
  }
};
struct Or {
  SY_HOST_DEVICE uint8_t operator()(uint8_t a, uint8_t b) const {
    return a != 0 || b != 0;
  }
};
struct Xor {
  SY_HOST_DEVICE uint8_t operator()(uint8_t a, uint8_t b) const {
    return (a != 0) != (b != 0);
  }
};

}  // namespace logical
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_LOGICAL_FUNCTORS_H_
