// quantize_linear and dequantize_linear: per-tensor linear quantization, as
// ONNX QuantizeLinear and DequantizeLinear with one scale and one zero point
// (what a QDQ model puts on every activation), in one pass each where the
// importer's composition of div, round, add, where, clip and casts took ten.
//   quantize_linear(x float32, scale float32, zero_point uint8/int8)
//     = saturate(round_half_even(x / scale) + zero_point), NaN to the
//       type's minimum; zero_point's dtype
//   dequantize_linear(q uint8/int8, scale float32, zero_point q's dtype)
//     = (q - zero_point) * scale; float32
// scale and zero_point hold one element each; the output has x's (q's)
// shape. Formulas: ops/linear_quantization.h.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

bool IsEightBit(DType d) { return d == DType::kUInt8 || d == DType::kInt8; }

absl::Status CheckScaleAndZeroPoint(const TensorType& scale, const TensorType& zero_point,
                                    DType quantized, const char* op) {
  if (scale.dtype != DType::kFloat32 || scale.shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, "'s scale is ", DTypeName(scale.dtype), scale.shape.ToString(),
        "; it takes one float32 value (per-axis scales compose other ops)"));
  }
  if (zero_point.dtype != quantized || zero_point.shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, "'s zero_point is ", DTypeName(zero_point.dtype), zero_point.shape.ToString(),
        "; it takes one value of the quantized dtype, ", DTypeName(quantized)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TensorType>> QuantizeTypes(
    const NoAttrs& /*attrs*/, absl::Span<const TensorType> operands) {
  if (operands[0].dtype != DType::kFloat32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantize_linear's x is ", DTypeName(operands[0].dtype), "; it takes float32"));
  }
  if (!IsEightBit(operands[2].dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantize_linear's zero_point is ", DTypeName(operands[2].dtype),
        "; it makes uint8 or int8"));
  }
  if (absl::Status s = CheckScaleAndZeroPoint(operands[1], operands[2], operands[2].dtype,
                                              "quantize_linear");
      !s.ok()) {
    return s;
  }
  return std::vector<TensorType>{{operands[0].shape, operands[2].dtype}};
}

absl::StatusOr<std::vector<TensorType>> DequantizeTypes(
    const NoAttrs& /*attrs*/, absl::Span<const TensorType> operands) {
  if (!IsEightBit(operands[0].dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dequantize_linear's q is ", DTypeName(operands[0].dtype), "; it takes uint8 or int8"));
  }
  if (absl::Status s = CheckScaleAndZeroPoint(operands[1], operands[2], operands[0].dtype,
                                              "dequantize_linear");
      !s.ok()) {
    return s;
  }
  return std::vector<TensorType>{{operands[0].shape, DType::kFloat32}};
}

static const bool kQuantize = RegisterOp(ops_internal::TypesOp(
    {"quantize_linear", {{"x"}, {"scale"}, {"zero_point"}}, {DType::kFloat32}},
    &QuantizeTypes));
static const bool kDequantize = RegisterOp(ops_internal::TypesOp(
    {"dequantize_linear", {{"q"}, {"scale"}, {"zero_point"}}, {DType::kUInt8, DType::kInt8}},
    &DequantizeTypes));

}  // namespace
}  // namespace switchyard
