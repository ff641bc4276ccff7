#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_INTEGER_PRODUCTS_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_INTEGER_PRODUCTS_H_

// What the reference kernels of matmul_integer and conv_integer share:
// reading a uint8 or int8 element, and the int32 a sum wraps to (ONNX
// Runtime's accumulators are int32).

#include <cstdint>

#include "core/dtype.h"
#include "core/tensor.h"

namespace switchyard {
namespace reference {

inline int64_t EightBit(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kUInt8 ? t.data<uint8_t>()[i] : t.data<int8_t>()[i];
}

// Zero point `row` of a scalar or per-row zero point.
inline int64_t ZeroPoint(const Tensor& zp, int64_t row) {
  return EightBit(zp, zp.num_elements() == 1 ? 0 : row);
}

// The low 32 bits of `sum`, as two's complement.
inline int32_t WrapToInt32(int64_t sum) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_INTEGER_PRODUCTS_H_
