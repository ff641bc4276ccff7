// ONNX Runtime's quantized contrib ops (domain com.microsoft) that its
// quantizer writes in QOperator models. Most are "dequantize the inputs,
// run the float op, quantize the output": the float op is converted by its
// own ai.onnx converter (so AveragePool's attributes, Softmax's opset
// semantics and every check are read one way), and the results are within
// one quantization step of ONNX Runtime's table- and integer-based kernels.
// The matmuls to float keep the integer product.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"
#include "onnx/integer_products.h"
#include "onnx/quantization.h"

namespace switchyard {
namespace onnx_import {
namespace {

// One quantized tensor of the node: data, scale and zero-point inputs.
struct QuantizedInput {
  int data, scale, zero_point;
};

// Input i dequantized to float32 (per-tensor, as the contrib ops take).
absl::StatusOr<Val> DequantizeInput(NodeContext& ctx, const QuantizedInput& q) {
  const Val data = ctx.In(q.data);
  const std::string scale_name = absl::StrCat("input ", q.scale);
  const std::string zp_name = absl::StrCat("input ", q.zero_point);
  SY_ASSIGN_OR_RETURN(
      QuantParams p,
      ReadQuantParams(ctx, {q.scale, q.zero_point, scale_name.c_str(), zp_name.c_str(), 1, 0,
                            false},
                      ctx.Type(data).shape, ctx.Type(data).dtype));
  if (p.type != ctx.Type(data).dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", q.zero_point, " is ", DTypeName(p.type), " but input ", q.data, " is ",
        DTypeName(ctx.Type(data).dtype), "; a zero point has its data's dtype"));
  }
  return Dequantize(ctx, data, p);
}

// The float op `op_type` (ai.onnx, at `opset`) converted on `inputs` with
// the node's attributes but `skip`; its first output.
absl::StatusOr<Val> ConvertFloatOp(NodeContext& ctx, const std::string& op_type, int opset,
                                   std::vector<Val> inputs,
                                   const std::vector<std::string>& skip) {
  onnx::NodeProto node;
  node.set_name(ctx.node().name());
  node.set_op_type(op_type);
  for (size_t i = 0; i < inputs.size(); ++i) node.add_input(absl::StrCat("float_input_", i));
  node.add_output(ctx.node().output(0));
  for (const onnx::AttributeProto& a : ctx.node().attribute()) {
    bool skipped = false;
    for (const std::string& s : skip) skipped |= a.name() == s;
    if (skipped) continue;
    *node.add_attribute() = a;
    ctx.Ignore(a.name());  // read by the float op's converter below
  }
  auto converter = Converters().find(op_type);
  if (converter == Converters().end()) {
    return absl::InternalError(absl::StrCat("no converter for ", op_type));
  }
  NodeContext inner(node, opset, std::move(inputs), ctx.state());
  SY_RETURN_IF_ERROR(converter->second.convert(inner));
  std::vector<std::string> unread = inner.UnreadAttributes();
  if (!unread.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "attribute ", unread.front(), " is not supported by Switchyard's ", ctx.op_type(),
        " import"));
  }
  if (!inner.Output(0).has_value()) {
    return absl::InternalError(absl::StrCat(op_type, " set no output"));
  }
  return *inner.Output(0);
}

// The node's output quantized with the scale and zero point at inputs
// `scale` and `zero_point`, in the dtype of input `like`.
absl::Status QuantizeOutput(NodeContext& ctx, Val y, int scale, int zero_point, int like) {
  const std::string scale_name = absl::StrCat("input ", scale);
  const std::string zp_name = absl::StrCat("input ", zero_point);
  SY_ASSIGN_OR_RETURN(QuantParams p,
                      ReadQuantParams(ctx, {scale, zero_point, scale_name.c_str(),
                                            zp_name.c_str(), 1, 0, false},
                                      ctx.Type(y).shape, ctx.Type(ctx.In(like)).dtype));
  SY_ASSIGN_OR_RETURN(Val q, Quantize(ctx, y, p));
  return ctx.SetOutput(0, q);
}

// Ops of the form (quantized inputs..., output scale, output zero point).
absl::Status Through(NodeContext& ctx, const std::string& float_op,
                     const std::vector<QuantizedInput>& inputs, int out_scale, int out_zp,
                     const std::vector<std::string>& skip = {}, int opset = 0) {
  std::vector<Val> real;
  for (const QuantizedInput& q : inputs) {
    SY_ASSIGN_OR_RETURN(Val v, DequantizeInput(ctx, q));
    real.push_back(v);
  }
  SY_ASSIGN_OR_RETURN(Val y, ConvertFloatOp(ctx, float_op, opset > 0 ? opset : ctx.opset(),
                                            std::move(real), skip));
  return QuantizeOutput(ctx, y, out_scale, out_zp, inputs.front().data);
}

// Two tensors of one dtype and shape with float32 scales: one qlinear_add
// op (the composition's formula in one pass, ops/qlinear_add.cc); with
// broadcasting or other scale dtypes, the composition.
absl::Status ConvertQLinearAdd(NodeContext& ctx) {
  const TensorType a = ctx.Type(ctx.In(0));
  const TensorType b = ctx.Type(ctx.In(3));
  bool one_pass = a.shape == b.shape && a.dtype == b.dtype;
  for (int scale : {1, 4, 6}) {
    one_pass = one_pass && ctx.Type(ctx.In(scale)).dtype == DType::kFloat32;
  }
  if (!one_pass) return Through(ctx, "Add", {{0, 1, 2}, {3, 4, 5}}, 6, 7);
  std::vector<Val> operands = {ctx.In(0), ctx.In(3)};
  DType out = a.dtype;
  for (const QuantizedInput& q : {QuantizedInput{0, 1, 2}, {3, 4, 5}, {0, 6, 7}}) {
    const std::string scale_name = absl::StrCat("input ", q.scale);
    const std::string zp_name = absl::StrCat("input ", q.zero_point);
    // The checks the composition makes: positive finite scales, zero points
    // of the data's dtype, one of each.
    SY_ASSIGN_OR_RETURN(QuantParams p,
                        ReadQuantParams(ctx, {q.scale, q.zero_point, scale_name.c_str(),
                                              zp_name.c_str(), 1, 0, false},
                                        a.shape, a.dtype));
    const bool is_output = q.scale == 6;
    if (is_output) {
      out = p.type;
    } else if (p.type != a.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", q.zero_point, " is ", DTypeName(p.type), " but input ", q.data, " is ",
          DTypeName(a.dtype), "; a zero point has its data's dtype"));
    }
    SY_ASSIGN_OR_RETURN(Val scale, Reshape(ctx, ctx.In(q.scale), {}));
    SY_ASSIGN_OR_RETURN(Val wide_zp, Reshape(ctx, p.zero_point, {}));
    SY_ASSIGN_OR_RETURN(Val zp, CastTo(ctx, wide_zp, is_output ? out : a.dtype));
    operands.push_back(scale);
    operands.push_back(zp);
  }
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("qlinear_add", operands, AttrMap()));
  return ctx.SetOutput(0, y);
}
absl::Status ConvertQLinearMul(NodeContext& ctx) {
  return Through(ctx, "Mul", {{0, 1, 2}, {3, 4, 5}}, 6, 7);
}
// QLinearWhere(condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale, z_zp).
absl::Status ConvertQLinearWhere(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val x, DequantizeInput(ctx, {1, 2, 3}));
  SY_ASSIGN_OR_RETURN(Val y, DequantizeInput(ctx, {4, 5, 6}));
  SY_ASSIGN_OR_RETURN(Val z, ConvertFloatOp(ctx, "Where", ctx.opset(), {ctx.In(0), x, y}, {}));
  return QuantizeOutput(ctx, z, 7, 8, 1);
}
absl::Status ConvertQLinearSigmoid(NodeContext& ctx) {
  return Through(ctx, "Sigmoid", {{0, 1, 2}}, 3, 4);
}
absl::Status ConvertQLinearLeakyRelu(NodeContext& ctx) {
  return Through(ctx, "LeakyRelu", {{0, 1, 2}}, 3, 4);
}
// Its `opset` attribute says which Softmax semantics (axis flattening
// before opset 13) apply.
absl::Status ConvertQLinearSoftmax(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t opset, ctx.Int("opset", 13));
  if (opset < 1 || opset > ctx.opset()) opset = ctx.opset();
  return Through(ctx, "Softmax", {{0, 1, 2}}, 3, 4, {"opset"}, static_cast<int>(opset));
}

// Pooling with channels_last: the NHWC input transposed to NCHW around the
// float op.
absl::Status ThroughPool(NodeContext& ctx, const std::string& float_op) {
  SY_ASSIGN_OR_RETURN(int64_t channels_last, ctx.Int("channels_last", 0));
  SY_ASSIGN_OR_RETURN(Val x, DequantizeInput(ctx, {0, 1, 2}));
  const int rank = ctx.Type(x).shape.rank();
  std::vector<int64_t> to_first(rank), to_last(rank);
  if (channels_last != 0) {
    if (rank < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input X is ", ctx.Type(x).shape.ToString(), "; pooling takes rank 3 or more"));
    }
    // [N, spatial..., C] -> [N, C, spatial...] and back.
    to_first[0] = 0, to_first[1] = rank - 1;
    for (int d = 2; d < rank; ++d) to_first[d] = d - 1;
    to_last[0] = 0, to_last[rank - 1] = 1;
    for (int d = 1; d < rank - 1; ++d) to_last[d] = d + 1;
    SY_ASSIGN_OR_RETURN(x, Op(ctx, "transpose", {x}, Attrs({{"perm", to_first}})));
  }
  SY_ASSIGN_OR_RETURN(Val y, ConvertFloatOp(ctx, float_op, ctx.opset(), {x}, {"channels_last"}));
  if (channels_last != 0) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "transpose", {y}, Attrs({{"perm", to_last}})));
  }
  return QuantizeOutput(ctx, y, 3, 4, 0);
}
absl::Status ConvertQLinearGlobalAveragePool(NodeContext& ctx) {
  return ThroughPool(ctx, "GlobalAveragePool");
}
absl::Status ConvertQLinearAveragePool(NodeContext& ctx) {
  return ThroughPool(ctx, "AveragePool");
}

// (Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input).
absl::Status ConvertQLinearConcat(NodeContext& ctx) {
  if (ctx.num_inputs() < 5 || (ctx.num_inputs() - 2) % 3 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "QLinearConcat takes Y_scale, Y_zero_point and (X, X_scale, X_zero_point) per "
        "input; the node has ", ctx.num_inputs(), " inputs"));
  }
  std::vector<QuantizedInput> inputs;
  for (int i = 2; i < ctx.num_inputs(); i += 3) inputs.push_back({i, i + 1, i + 2});
  return Through(ctx, "Concat", inputs, 0, 1);
}

// a_scale * b_scale (b's per column) as float32 for a [..., N] result.
absl::StatusOr<Val> ScaleProduct(NodeContext& ctx, Val a_scale, Val b_scale) {
  SY_ASSIGN_OR_RETURN(Val a, CastTo(ctx, a_scale, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val b, CastTo(ctx, b_scale, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(a, Reshape(ctx, a, {}));
  const int64_t n = ctx.Type(b).shape.num_elements();
  SY_ASSIGN_OR_RETURN(b, Reshape(ctx, b, n == 1 ? std::vector<int64_t>{}
                                                : std::vector<int64_t>{n}));
  return Op(ctx, "mul", {a, b});
}

// int32 product * scale (+ bias): the float result of the matmul ops.
absl::Status ScaledProduct(NodeContext& ctx, Val product, Val scale, int bias) {
  SY_ASSIGN_OR_RETURN(Val real, CastTo(ctx, product, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {real, scale}));
  if (ctx.HasInput(bias)) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "add", {y, ctx.In(bias)}));
  }
  return ctx.SetOutput(0, y);
}

// MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?, b_zero_point?,
// bias?): float32 (A - a_zp)(B - b_zp) * a_scale * b_scale + bias.
absl::Status ConvertMatMulIntegerToFloat(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val a_zp, ZeroPointInput(ctx, 4, 0, "a_zero_point", "A"));
  SY_ASSIGN_OR_RETURN(Val b_zp, ZeroPointInput(ctx, 5, 1, "b_zero_point", "B"));
  SY_ASSIGN_OR_RETURN(Val product, ctx.EmitOne("matmul_integer",
                                               {ctx.In(0), ctx.In(1), a_zp, b_zp}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val scale, ScaleProduct(ctx, ctx.In(2), ctx.In(3)));
  return ScaledProduct(ctx, product, scale, 6);
}

// DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?): A quantized
// as DynamicQuantizeLinear does, then as MatMulIntegerToFloat.
absl::Status ConvertDynamicQuantizeMatMul(NodeContext& ctx) {
  if (ctx.Type(ctx.In(0)).dtype != DType::kFloat32) {
    return absl::InvalidArgumentError("input A must be float32");
  }
  SY_ASSIGN_OR_RETURN(DynamicQuantized a, DynamicQuantize(ctx, ctx.In(0)));
  SY_ASSIGN_OR_RETURN(Val b_zp, ZeroPointInput(ctx, 3, 1, "b_zero_point", "B"));
  SY_ASSIGN_OR_RETURN(Val product, ctx.EmitOne("matmul_integer",
                                               {a.y, ctx.In(1), a.zero_point, b_zp}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val scale, ScaleProduct(ctx, a.scale, ctx.In(2)));
  return ScaledProduct(ctx, product, scale, 4);
}

// QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?): Gemm of
// the dequantized operands, C an int32 bias at scale a_scale * b_scale;
// quantized when y_scale is given, float32 otherwise.
absl::Status ConvertQGemm(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val a, DequantizeInput(ctx, {0, 1, 2}));
  // b may be per column of the output: its scale broadcasts along its
  // last axis (or first when transB).
  SY_ASSIGN_OR_RETURN(int64_t trans_b, ctx.Int("transB", 0));
  const Shape b_shape = ctx.InShape(3);
  SY_ASSIGN_OR_RETURN(
      QuantParams bp,
      ReadQuantParams(ctx, {4, 5, "b_scale", "b_zero_point", trans_b != 0 ? 0 : 1, 0, true},
                      b_shape, ctx.Type(ctx.In(3)).dtype));
  SY_ASSIGN_OR_RETURN(Val b, Dequantize(ctx, ctx.In(3), bp));
  std::vector<Val> operands = {a, b};
  if (ctx.HasInput(6)) {
    SY_ASSIGN_OR_RETURN(Val c, CastTo(ctx, ctx.In(6), DType::kFloat32));
    SY_ASSIGN_OR_RETURN(Val scale, ScaleProduct(ctx, ctx.In(1), ctx.In(4)));
    SY_ASSIGN_OR_RETURN(c, Op(ctx, "mul", {c, scale}));
    operands.push_back(c);
  }
  SY_ASSIGN_OR_RETURN(Val y, ConvertFloatOp(ctx, "Gemm", ctx.opset(), operands, {}));
  if (!ctx.HasInput(7)) {
    ctx.IgnoreInput(8);
    return ctx.SetOutput(0, y);
  }
  return QuantizeOutput(ctx, y, 7, 8, 0);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearAdd", ConvertQLinearAdd, 7);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearMul", ConvertQLinearMul, 7);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearSigmoid", ConvertQLinearSigmoid, 4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearWhere", ConvertQLinearWhere, 9);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearLeakyRelu", ConvertQLinearLeakyRelu, 4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearSoftmax", ConvertQLinearSoftmax, 4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearGlobalAveragePool",
                           ConvertQLinearGlobalAveragePool, 4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearAveragePool", ConvertQLinearAveragePool, 4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QLinearConcat", ConvertQLinearConcat, 5);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.MatMulIntegerToFloat", ConvertMatMulIntegerToFloat,
                           4);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.DynamicQuantizeMatMul", ConvertDynamicQuantizeMatMul,
                           3);
SY_REGISTER_ONNX_CONVERTER("com.microsoft.QGemm", ConvertQGemm, 6);

}  // namespace onnx_import
}  // namespace switchyard
