// conv_integer: conv2d of 8-bit data less their zero points, accumulated in
// int32, as ONNX ConvInteger:
//   y[n, o, oh, ow] = sum (x[n, c, ih, iw] - x_zp) * (w[o, c, i, j] - w_zp[o])
// over conv2d's window; padding contributes 0 (it reads as x_zp).
//   operands:   input [N, C, H, W] (uint8/int8), weight [O, C/groups, kH, kW]
//               (uint8/int8), input_zero_point (input's dtype, scalar),
//               weight_zero_point (weight's dtype: scalar or [O])
//   attributes: conv2d's (ops/conv_attrs.h)
//   output:     int32 [N, O, Ho, Wo], conv2d's shape

#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/conv_attrs.h"
#include "ops/integer_operands.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> ConvIntegerTypes(
    const Conv2dAttrs& attrs, absl::Span<const TensorType> operands) {
  // The geometry (and its checks) is conv2d's.
  SY_ASSIGN_OR_RETURN(const OpDef* conv, OpRegistry::Global().Find("conv2d"));
  SY_ASSIGN_OR_RETURN(
      Shape output,
      conv->InferShape(attrs.ToAttrMap(), {operands[0].shape, operands[1].shape}));
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[0], operands[2], "input", "input_zero_point", "conv_integer", 0));
  SY_RETURN_IF_ERROR(ops_internal::CheckIntegerOperand(
      operands[1], operands[3], "weight", "weight_zero_point", "conv_integer",
      operands[1].shape.dim(0)));
  return std::vector<TensorType>{{output, DType::kInt32}};
}

// 2 * N * O * Ho * Wo * (C / groups) * kH * kW, as conv2d without bias.
int64_t ConvIntegerFlops(const AttrMap& /*attrs*/,
                         absl::Span<const Shape> operands, const Shape& output) {
  if (operands.size() < 2 || operands[1].rank() != 4) return 0;
  const Shape& weight = operands[1];
  return ops_internal::SaturatingProduct({2, output.num_elements(),
                                          weight.dim(1), weight.dim(2),
                                          weight.dim(3)});
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"conv_integer",
     {{"input"}, {"weight"}, {"input_zero_point"}, {"weight_zero_point"}},
     {DType::kUInt8, DType::kInt8}},
    &ConvIntegerTypes, &ConvIntegerFlops));

}  // namespace
}  // namespace switchyard
