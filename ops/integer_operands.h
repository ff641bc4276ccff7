#ifndef SWITCHYARD_OPS_INTEGER_OPERANDS_H_
#define SWITCHYARD_OPS_INTEGER_OPERANDS_H_

// The operand rules matmul_integer and conv_integer share (ONNX's
// MatMulInteger and ConvInteger): 8-bit data, each with a zero point of its
// own dtype that is a scalar or one value per row (a's rows, the conv's
// output channels; b's columns). Private to //ops:ops.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "core/op_def.h"
#include "ops/op_util.h"

namespace switchyard {
namespace ops_internal {

// `data` is int8 or uint8; its `zero_point` has data's dtype and is a
// scalar ([] or [1]) or, when `per_row` > 0, a vector of `per_row` values.
inline absl::Status CheckIntegerOperand(const TensorType& data,
                                        const TensorType& zero_point,
                                        absl::string_view data_name,
                                        absl::string_view zero_point_name,
                                        absl::string_view op, int64_t per_row) {
  static const DType kEightBit[] = {DType::kUInt8, DType::kInt8};
  if (absl::Status s = CheckDType(data.dtype, data_name, op, kEightBit); !s.ok()) {
    return s;
  }
  if (zero_point.dtype != data.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        zero_point_name, " is ", DTypeName(zero_point.dtype), " but ", data_name,
        " is ", DTypeName(data.dtype), "; a zero point has its data's dtype"));
  }
  const Shape& z = zero_point.shape;
  const bool scalar = z.rank() == 0 || (z.rank() == 1 && z.dim(0) == 1);
  const bool vector = per_row > 0 && z.rank() == 1 && z.dim(0) == per_row;
  if (!scalar && !vector) {
    return absl::InvalidArgumentError(absl::StrCat(
        zero_point_name, " is ", z.ToString(), "; it must be a scalar",
        per_row > 0 ? absl::StrCat(" or [", per_row, "] (one per row)") : ""));
  }
  return absl::OkStatus();
}

}  // namespace ops_internal
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_INTEGER_OPERANDS_H_
