// qlinear_conv: a quantized conv2d in one op, as ONNX QLinearConv (and a
// QDQ model's DequantizeLinear -> Conv -> QuantizeLinear, which the
// importer rewrites into it): conv_integer's int32 sum plus an int32 bias,
// requantized to 8 bits as ONNX Runtime does,
//   acc = conv_integer(input, weight, input_zp, weight_zp)[n, o, ...] + bias[o]
//   y   = saturate(round_half_even(float(acc) * multiplier[o]) + output_zp)
// with multiplier = input_scale * weight_scale / output_scale in float32
// (ops/linear_quantization.h: RequantizeElement). One op where the
// composition took eight, and a node that oneDNN runs as one int8
// convolution primitive.
//   operands:   input [N, C, H, W] (uint8/int8), weight [O, C/groups, kH, kW]
//               (uint8/int8), bias (int32 [O]), input_zero_point (input's
//               dtype, scalar), weight_zero_point (weight's dtype: scalar or
//               [O]), multiplier (float32: scalar or [O]), output_zero_point
//               (uint8/int8 scalar: the output's dtype)
//   attributes: conv2d's (ops/conv_attrs.h)
//   output:     [N, O, Ho, Wo] of output_zero_point's dtype

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/conv_attrs.h"
#include "ops/integer_operands.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

bool IsScalarOr(const Shape& s, int64_t n) {
  const bool scalar = s.rank() == 0 || (s.rank() == 1 && s.dim(0) == 1);
  return scalar || (s.rank() == 1 && s.dim(0) == n);
}

absl::StatusOr<std::vector<TensorType>> QLinearConvTypes(
    const Conv2dAttrs& attrs, absl::Span<const TensorType> operands) {
  SY_ASSIGN_OR_RETURN(const OpDef* conv, OpRegistry::Global().Find("conv2d"));
  SY_ASSIGN_OR_RETURN(
      Shape output,
      conv->InferShape(attrs.ToAttrMap(), {operands[0].shape, operands[1].shape}));
  const int64_t channels = operands[1].shape.dim(0);
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[0], operands[3], "input", "input_zero_point", "qlinear_conv", 0));
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[1], operands[4], "weight", "weight_zero_point", "qlinear_conv", channels));
  const TensorType& bias = operands[2];
  if (bias.dtype != DType::kInt32 || bias.shape != Shape({channels})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_conv's bias is ", DTypeName(bias.dtype), bias.shape.ToString(),
        "; it takes int32 [", channels, "] (one per output channel)"));
  }
  const TensorType& multiplier = operands[5];
  if (multiplier.dtype != DType::kFloat32 || !IsScalarOr(multiplier.shape, channels)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_conv's multiplier is ", DTypeName(multiplier.dtype),
        multiplier.shape.ToString(), "; it takes float32, a scalar or [", channels, "]"));
  }
  const TensorType& output_zp = operands[6];
  if ((output_zp.dtype != DType::kUInt8 && output_zp.dtype != DType::kInt8) ||
      !IsScalarOr(output_zp.shape, 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qlinear_conv's output_zero_point is ", DTypeName(output_zp.dtype),
        output_zp.shape.ToString(), "; it takes one uint8 or int8 value"));
  }
  return std::vector<TensorType>{{output, output_zp.dtype}};
}

// 2 * N * O * Ho * Wo * (C / groups) * kH * kW, as conv2d without bias.
int64_t QLinearConvFlops(const AttrMap& /*attrs*/, absl::Span<const Shape> operands,
                         const Shape& output) {
  if (operands.size() < 2 || operands[1].rank() != 4) return 0;
  const Shape& weight = operands[1];
  return ops_internal::SaturatingProduct(
      {2, output.num_elements(), weight.dim(1), weight.dim(2), weight.dim(3)});
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"qlinear_conv",
     {{"input"},
      {"weight"},
      {"bias"},
      {"input_zero_point"},
      {"weight_zero_point"},
      {"multiplier"},
      {"output_zero_point"}},
     {DType::kUInt8, DType::kInt8}},
    &QLinearConvTypes, &QLinearConvFlops));

}  // namespace
}  // namespace switchyard
