// qlinear_add: the sum of two 8-bit quantized tensors of one shape,
// requantized, as ONNX Runtime's com.microsoft QLinearAdd (and a QDQ
// model's DequantizeLinear x2 -> Add -> QuantizeLinear, which the importer
// rewrites into it):
//   y = quantize(dequantize(a) + dequantize(b), y_scale, y_zero_point)
// computed as ONNX Runtime's x86 kernel does, with the scale ratios
// (ops/linear_quantization.h: QLinearAddRange). One pass where the
// composition took four, each writing a float32 tensor.
//   operands: a, b (uint8/int8, one dtype and one shape), a_scale,
//             a_zero_point, b_scale, b_zero_point, y_scale, y_zero_point
//             (float32 scales and 8-bit zero points of one element each;
//             a's and b's zero points have their dtype)
//   output:   a's shape, y_zero_point's dtype

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

bool IsEightBit(DType d) { return d == DType::kUInt8 || d == DType::kInt8; }

absl::Status CheckParams(const TensorType& scale, const TensorType& zero_point,
                         const char* name) {
  if (scale.dtype != DType::kFloat32 || scale.shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_add's ", name, "_scale is ", DTypeName(scale.dtype), scale.shape.ToString(),
        "; it takes one float32 value"));
  }
  if (!IsEightBit(zero_point.dtype) || zero_point.shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_add's ", name, "_zero_point is ", DTypeName(zero_point.dtype),
        zero_point.shape.ToString(), "; it takes one uint8 or int8 value"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TensorType>> QLinearAddTypes(const NoAttrs& /*attrs*/,
                                                        absl::Span<const TensorType> operands) {
  const TensorType& a = operands[0];
  const TensorType& b = operands[1];
  if (!IsEightBit(a.dtype) || b.dtype != a.dtype || b.shape != a.shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_add takes two uint8 or int8 tensors of one dtype and shape; got ",
        DTypeName(a.dtype), a.shape.ToString(), " and ", DTypeName(b.dtype),
        b.shape.ToString()));
  }
  SY_RETURN_IF_ERROR(CheckParams(operands[2], operands[3], "a"));
  SY_RETURN_IF_ERROR(CheckParams(operands[4], operands[5], "b"));
  SY_RETURN_IF_ERROR(CheckParams(operands[6], operands[7], "y"));
  if (operands[3].dtype != a.dtype || operands[5].dtype != a.dtype) {
    return absl::InvalidArgumentError("qlinear_add's a and b zero points have a's dtype");
  }
  return std::vector<TensorType>{{a.shape, operands[7].dtype}};
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"qlinear_add",
     {{"a"},
      {"b"},
      {"a_scale"},
      {"a_zero_point"},
      {"b_scale"},
      {"b_zero_point"},
      {"y_scale"},
      {"y_zero_point"}},
     {DType::kUInt8, DType::kInt8}},
    &QLinearAddTypes));

}  // namespace
}  // namespace switchyard
