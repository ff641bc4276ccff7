// ONNX BitwiseAnd, BitwiseOr, BitwiseXor and BitwiseNot (opset 18) as the
// bitwise ops of ops/bitwise.cc, for the integer dtypes Switchyard has
// (int64, int32, int8, uint8; ONNX's int16, uint16, uint32 and uint64 are
// refused when the tensor is read). The binary ones broadcast (numpy rules).

#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status RequireInteger(NodeContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const DType t = ctx.Type(ctx.In(i)).dtype;
    if (t != DType::kInt64 && t != DType::kInt32 && t != DType::kInt8 &&
        t != DType::kUInt8) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.op_type(), " takes integer tensors; input ", i, " is ", DTypeName(t),
          " (cast it to an integer type)"));
    }
  }
  return absl::OkStatus();
}

absl::Status Binary(NodeContext& ctx, const char* op) {
  SY_RETURN_IF_ERROR(RequireInteger(ctx));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, op, {ctx.In(0), ctx.In(1)}));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertBitwiseAnd(NodeContext& ctx) { return Binary(ctx, "bitwise_and"); }
absl::Status ConvertBitwiseOr(NodeContext& ctx) { return Binary(ctx, "bitwise_or"); }
absl::Status ConvertBitwiseXor(NodeContext& ctx) { return Binary(ctx, "bitwise_xor"); }

absl::Status ConvertBitwiseNot(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(RequireInteger(ctx));
  return EmitUnary(ctx, "bitwise_not");
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("BitwiseAnd", ConvertBitwiseAnd, 2);
SY_REGISTER_ONNX_CONVERTER("BitwiseOr", ConvertBitwiseOr, 2);
SY_REGISTER_ONNX_CONVERTER("BitwiseXor", ConvertBitwiseXor, 2);
SY_REGISTER_ONNX_CONVERTER("BitwiseNot", ConvertBitwiseNot);

}  // namespace onnx_import
}  // namespace switchyard
