#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_INTEGER_OPERANDS_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_INTEGER_OPERANDS_H_

// Reading the 8-bit operands of matmul_integer and conv_integer (uint8 or
// int8, chosen at run time) less their zero point, which is a scalar or one
// value per row (ops/integer_operands.h).

#include <cstdint>

#include "core/dtype.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

// Element `i` of a uint8 or int8 tensor.
inline int32_t EightBitAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kUInt8 ? t.data<uint8_t>()[i]
                                    : t.data<int8_t>()[i];
}

// The zero point of row `row`: element 0 of a scalar, else element `row`.
inline int32_t ZeroPointOf(const Tensor& zero_point, int64_t row) {
  return EightBitAt(zero_point, zero_point.num_elements() == 1 ? 0 : row);
}

// dst[r * cols + c] = data[offset + r * cols + c] less the zero point of
// row first_row + r (per_row) or of column c (otherwise), for a block of
// rows x cols elements (as float: exact, and what exact_integer_product.h
// multiplies).
inline void WidenLessZeroPoint(const Tensor& data, int64_t offset, int64_t rows,
                               int64_t cols, const Tensor& zero_point,
                               bool per_row, int64_t first_row, float* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int32_t zp = ZeroPointOf(zero_point, per_row ? first_row + r : c);
      dst[r * cols + c] = static_cast<float>(EightBitAt(data, offset + r * cols + c) - zp);
    }
  }
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_INTEGER_OPERANDS_H_
