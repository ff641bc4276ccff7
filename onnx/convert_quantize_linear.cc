// ONNX QuantizeLinear, DequantizeLinear (every version: per-tensor,
// per-axis, opset 21's blocked form, output_dtype; 8-bit, 16-bit, 4-bit and
// float8 types) and DynamicQuantizeLinear,
// composed of Switchyard's ops by onnx/quantization.h. Constant weights and
// their scales fold at import, so a QDQ model's dequantized weights are
// plain float constants; activations get the ops in the graph.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"
#include "onnx/onnx_tensor.h"
#include "onnx/quantization.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The dtype an output_dtype attribute names (0: none), among `allowed`.
absl::StatusOr<DType> OutputDType(NodeContext& ctx, absl::Span<const DType> allowed,
                                  DType absent) {
  SY_ASSIGN_OR_RETURN(int64_t onnx_type, ctx.Int("output_dtype", 0));
  if (onnx_type == 0) return absent;
  absl::StatusOr<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(onnx_type));
  if (dtype.ok()) {
    for (DType a : allowed) {
      if (a == *dtype) return a;
    }
  }
  std::string names;
  for (DType a : allowed) absl::StrAppend(&names, names.empty() ? "" : ", ", DTypeName(a));
  return absl::UnimplementedError(absl::StrCat(
      "attribute output_dtype is ", OnnxTypeName(static_cast<int32_t>(onnx_type)),
      "; Switchyard's ", ctx.op_type(), " makes ", names));
}

// What QuantizeLinear makes, in the enum's order (for messages).
std::vector<DType> QuantizedDTypes() {
  std::vector<DType> types;
  for (DType d : AllDTypes()) {
    if (IsQuantizedDType(d)) types.push_back(d);
  }
  return types;
}

absl::StatusOr<QuantInputs> GranularityOf(NodeContext& ctx, QuantInputs in) {
  SY_ASSIGN_OR_RETURN(in.axis, ctx.Int("axis", 1));
  SY_ASSIGN_OR_RETURN(in.block_size, ctx.Int("block_size", 0));
  return in;
}

absl::Status ConvertQuantizeLinear(NodeContext& ctx) {
  QuantInputs in{1, 2, "y_scale", "y_zero_point"};
  SY_ASSIGN_OR_RETURN(in, GranularityOf(ctx, in));
  // saturate concerns float8 outputs only; precision (23) may only say
  // float32, the precision used here.
  SY_ASSIGN_OR_RETURN(int64_t saturate, ctx.Int("saturate", 1));
  if (saturate != 0 && saturate != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute saturate is ", saturate, "; it takes 0 or 1"));
  }
  SY_ASSIGN_OR_RETURN(int64_t precision, ctx.Int("precision", 0));
  if (precision != 0 && precision != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "attribute precision is ", OnnxTypeName(static_cast<int32_t>(precision)),
        "; Switchyard divides in float32 (precision 0 or 1)"));
  }
  SY_ASSIGN_OR_RETURN(DType requested, OutputDType(ctx, QuantizedDTypes(), DType::kUInt8));
  SY_ASSIGN_OR_RETURN(QuantParams p, ReadQuantParams(ctx, in, ctx.InShape(0), requested));
  p.saturate = saturate == 1;
  if (!IsQuantizedDType(p.type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input y_zero_point is ", DTypeName(p.type),
        "; QuantizeLinear makes uint8, int8, uint16, int16, uint4, int4 or a float8 type "
        "(the zero point's dtype)"));
  }
  if (ctx.HasAttr("output_dtype") && p.type != requested) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute output_dtype says ", DTypeName(requested), " but input y_zero_point is ",
        DTypeName(p.type), "; they must agree"));
  }
  const DType x_type = ctx.Type(ctx.In(0)).dtype;
  if (!IsFloatingPoint(x_type) && x_type != DType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input x is ", DTypeName(x_type), "; QuantizeLinear takes float or int32 data"));
  }
  // Until opset 23 split them, x and y_scale share one type (T1).
  if (ctx.opset() < 23 && IsFloatingPoint(x_type) && p.scale_type != x_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input y_scale is ", DTypeName(p.scale_type), " but x is ", DTypeName(x_type),
        "; QuantizeLinear-", ctx.opset(), " takes them in one type (opset 23 lets them "
        "differ): cast the scale"));
  }
  SY_ASSIGN_OR_RETURN(Val y, Quantize(ctx, ctx.In(0), p));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertDequantizeLinear(NodeContext& ctx) {
  QuantInputs in{1, 2, "x_scale", "x_zero_point"};
  SY_ASSIGN_OR_RETURN(in, GranularityOf(ctx, in));
  const DType x_type = ctx.Type(ctx.In(0)).dtype;
  if (!IsQuantizedDType(x_type) && x_type != DType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input x is ", DTypeName(x_type),
        "; DequantizeLinear takes uint8, int8, uint16, int16, uint4, int4, int32 or a "
        "float8 type"));
  }
  SY_ASSIGN_OR_RETURN(QuantParams p, ReadQuantParams(ctx, in, ctx.InShape(0), x_type));
  if (p.type != x_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input x_zero_point is ", DTypeName(p.type), " but x is ", DTypeName(x_type),
        "; a zero point has its data's dtype"));
  }
  const DType scale_type = IsFloatingPoint(p.scale_type) ? p.scale_type : DType::kFloat32;
  SY_ASSIGN_OR_RETURN(
      DType out, OutputDType(ctx, {DType::kFloat32, DType::kFloat16, DType::kBFloat16},
                             scale_type));
  if (ctx.HasAttr("output_dtype") && out != scale_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute output_dtype says ", DTypeName(out), " but x_scale is ",
        DTypeName(scale_type), "; DequantizeLinear's output has its scale's type"));
  }
  SY_ASSIGN_OR_RETURN(Val y, Dequantize(ctx, ctx.In(0), p, out));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertDynamicQuantizeLinear(NodeContext& ctx) {
  const Val x = ctx.In(0);
  if (ctx.Type(x).dtype != DType::kFloat32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input x is ", DTypeName(ctx.Type(x).dtype), "; DynamicQuantizeLinear takes float32"));
  }
  SY_ASSIGN_OR_RETURN(DynamicQuantized q, DynamicQuantize(ctx, x));
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, q.y));
  SY_RETURN_IF_ERROR(ctx.SetOutput(1, q.scale));
  return ctx.SetOutput(2, q.zero_point);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("QuantizeLinear", ConvertQuantizeLinear, 2);
SY_REGISTER_ONNX_CONVERTER("DequantizeLinear", ConvertDequantizeLinear, 2);
SY_REGISTER_ONNX_CONVERTER("DynamicQuantizeLinear", ConvertDynamicQuantizeLinear);

}  // namespace onnx_import
}  // namespace switchyard
