// ONNX's integer products: MatMulInteger and ConvInteger (int32 results),
// and QLinearMatMul and QLinearConv, which requantize that int32 result as
// ONNX Runtime does: y = saturate(round(acc * (a_scale * b_scale / y_scale))
// + y_zero_point). The products are Switchyard's matmul_integer and
// conv_integer ops; the rescaling is composed by onnx/quantization.h.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"
#include "onnx/integer_products.h"
#include "onnx/quantization.h"
#include "onnx/window_ops.h"

namespace switchyard {
namespace onnx_import {

namespace {

// The data is 8-bit and its zero point, if any, of the data's dtype.
absl::Status CheckZeroPointDType(NodeContext& ctx, int index, int data_index,
                                 const char* name, const char* data_name) {
  const DType type = ctx.Type(ctx.In(data_index)).dtype;
  if (type != DType::kUInt8 && type != DType::kInt8) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", data_name, " is ", DTypeName(type), "; ", ctx.op_type(),
        " takes uint8 or int8"));
  }
  if (ctx.HasInput(index) && ctx.Type(ctx.In(index)).dtype != type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", name, " is ", DTypeName(ctx.Type(ctx.In(index)).dtype), " but ", data_name,
        " is ", DTypeName(type), "; a zero point has its data's dtype"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Val> ZeroPointInput(NodeContext& ctx, int index, int data_index,
                                   const char* name, const char* data_name) {
  SY_RETURN_IF_ERROR(CheckZeroPointDType(ctx, index, data_index, name, data_name));
  const DType type = ctx.Type(ctx.In(data_index)).dtype;
  if (!ctx.HasInput(index)) return ZeroOf(ctx, type);
  const Val zp = ctx.In(index);
  const TensorType& t = ctx.Type(zp);
  // [..., 1, N] or [..., M, 1] with leading 1s: the vector it holds.
  const Shape& s = t.shape;
  if (s.rank() <= 1) return zp;
  int non_one = 0;
  for (int64_t d : s.dims()) non_one += d != 1;
  if (non_one > 1) {
    return absl::UnimplementedError(absl::StrCat(
        "input ", name, " is ", s.ToString(),
        "; Switchyard takes a scalar or one zero point per row (column) only"));
  }
  return Reshape(ctx, zp, {s.num_elements()});
}

absl::StatusOr<Val> EmitConvInteger(NodeContext& ctx, Val x, Val w, Val x_zp, Val w_zp,
                                    const Requantization* requantization) {
  const Shape x_shape = ctx.Type(x).shape;
  const Shape w_shape = ctx.Type(w).shape;
  const bool one_d = w_shape.rank() == 3;
  if (w_shape.rank() != 4 && !one_d) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D and 2-D ", ctx.op_type(), " are supported; the weight is ",
        w_shape.ToString()));
  }
  std::vector<int64_t> spatial(w_shape.dims().begin() + 2, w_shape.dims().end());
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape", spatial));
  if (kernel != spatial) {
    return absl::InvalidArgumentError("attribute kernel_shape does not match the weight");
  }
  SY_ASSIGN_OR_RETURN(Window win, Read2dWindow(ctx, x_shape, kernel, true));
  SY_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  SY_ASSIGN_OR_RETURN(Val input, As4d(ctx, x));
  if (one_d) {
    SY_ASSIGN_OR_RETURN(w, Reshape(ctx, w, {w_shape.dim(0), w_shape.dim(1), 1, w_shape.dim(2)}));
  }
  std::vector<int64_t> padding = win.pad_begin;
  if (!win.symmetric()) {
    // Padding must read as the zero point (a 0 after subtracting it).
    const HostArray* zp = ctx.Host(x_zp);
    if (zp == nullptr) {
      return absl::UnimplementedError(
          "asymmetric pads with an input zero point computed at run time");
    }
    SY_ASSIGN_OR_RETURN(input, PadSpatial(ctx, input, win, zp->ElementAsDouble(0)));
    padding = {0, 0};
  }
  const AttrMap attrs = Attrs({{"stride", win.strides},
                               {"padding", padding},
                               {"dilation", win.dilations},
                               {"groups", group}});
  if (requantization == nullptr) {
    return ctx.EmitOne("conv_integer", {input, w, x_zp, w_zp}, attrs);
  }
  const Requantization& r = *requantization;
  return ctx.EmitOne("qlinear_conv",
                     {input, w, r.bias, x_zp, w_zp, r.multiplier, r.output_zero_point}, attrs);
}

namespace {

// Whether MatMulInteger's zero point `index` varies along anything but its
// matrix axis (A's rows, the second-to-last; B's columns, the last): a
// batched zero point such as [2, 1, 3] for B [2, 6, 3].
bool VariesAlongBatch(NodeContext& ctx, int index, int axis_from_end) {
  if (!ctx.HasInput(index)) return false;
  const Shape& s = ctx.Type(ctx.In(index)).shape;
  if (s.rank() < 2) return false;
  for (int d = 0; d < s.rank(); ++d) {
    if (d != s.rank() - axis_from_end && s.dim(d) != 1) return true;
  }
  return false;
}

// `index`'s zero point as int32, broadcasting against the product's
// [..., M, N] (a 1-D zero point of A becomes [M, 1]); 0 when absent.
absl::StatusOr<Val> WideZeroPoint(NodeContext& ctx, int index, bool of_a) {
  if (!ctx.HasInput(index)) return Scalar(ctx, 0, DType::kInt32);
  SY_ASSIGN_OR_RETURN(Val zp, CastTo(ctx, ctx.In(index), DType::kInt32));
  const Shape& s = ctx.Type(zp).shape;
  if (of_a && s.rank() == 1) return Reshape(ctx, zp, {s.dim(0), 1});
  return zp;
}

// MatMulInteger whose zero point varies along a batch dimension, which
// matmul_integer's per-row and per-column vectors cannot hold: the product
// of the raw values, then the zero points' terms in int32,
//   (A - za)(B - zb) = A B - za colsum(B) - rowsum(A) zb + K za zb
// (the sums as matmul_integer by ones), exact and wrapping as ONNX
// Runtime's int32 accumulator does.
absl::Status MatMulIntegerWithBatchedZeroPoints(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(CheckZeroPointDType(ctx, 2, 0, "a_zero_point", "A"));
  SY_RETURN_IF_ERROR(CheckZeroPointDType(ctx, 3, 1, "b_zero_point", "B"));
  const Val a = ctx.In(0), b = ctx.In(1);
  const Shape a_shape = ctx.Type(a).shape, b_shape = ctx.Type(b).shape;
  if (a_shape.rank() < 2 || b_shape.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "A is ", a_shape.ToString(), " and B ", b_shape.ToString(),
        "; a zero point with batch dimensions needs matrices (rank 2 or more) on both sides"));
  }
  const int64_t k = a_shape.dim(a_shape.rank() - 1);
  const Val zero_a = ZeroOf(ctx, ctx.Type(a).dtype);
  const Val zero_b = ZeroOf(ctx, ctx.Type(b).dtype);
  const Val zero_u8 = ZeroOf(ctx, DType::kUInt8);
  const std::vector<uint8_t> ones(static_cast<size_t>(k), 1);
  const Val ones_column = ctx.Constant(
      HostArray::Of<uint8_t>(Shape({k, 1}), absl::Span<const uint8_t>(ones)));
  const Val ones_row = ctx.Constant(
      HostArray::Of<uint8_t>(Shape({1, k}), absl::Span<const uint8_t>(ones)));
  SY_ASSIGN_OR_RETURN(Val product, ctx.EmitOne("matmul_integer", {a, b, zero_a, zero_b},
                                               AttrMap()));
  SY_ASSIGN_OR_RETURN(Val row_sums, ctx.EmitOne("matmul_integer",
                                                {a, ones_column, zero_a, zero_u8}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val column_sums, ctx.EmitOne("matmul_integer",
                                                   {ones_row, b, zero_u8, zero_b}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val za, WideZeroPoint(ctx, 2, /*of_a=*/true));
  SY_ASSIGN_OR_RETURN(Val zb, WideZeroPoint(ctx, 3, /*of_a=*/false));
  SY_ASSIGN_OR_RETURN(Val za_terms, Op(ctx, "mul", {za, column_sums}));
  SY_ASSIGN_OR_RETURN(Val zb_terms, Op(ctx, "mul", {row_sums, zb}));
  SY_ASSIGN_OR_RETURN(Val zz, Op(ctx, "mul", {za, zb}));
  SY_ASSIGN_OR_RETURN(Val k_zz, Op(ctx, "mul", {zz, Scalar(ctx, static_cast<double>(k),
                                                             DType::kInt32)}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "sub", {product, za_terms}));
  SY_ASSIGN_OR_RETURN(y, Op(ctx, "sub", {y, zb_terms}));
  SY_ASSIGN_OR_RETURN(y, Op(ctx, "add", {y, k_zz}));
  if (ctx.Type(y).shape != ctx.Type(product).shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the zero points broadcast the product ", ctx.Type(product).shape.ToString(), " to ",
        ctx.Type(y).shape.ToString(), "; a zero point's batch dimensions must fit the data's"));
  }
  return ctx.SetOutput(0, y);
}

absl::Status ConvertMatMulInteger(NodeContext& ctx) {
  if (VariesAlongBatch(ctx, 2, 2) || VariesAlongBatch(ctx, 3, 1)) {
    return MatMulIntegerWithBatchedZeroPoints(ctx);
  }
  SY_ASSIGN_OR_RETURN(Val a_zp, ZeroPointInput(ctx, 2, 0, "a_zero_point", "A"));
  SY_ASSIGN_OR_RETURN(Val b_zp, ZeroPointInput(ctx, 3, 1, "b_zero_point", "B"));
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("matmul_integer", {ctx.In(0), ctx.In(1), a_zp, b_zp},
                                         AttrMap()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertConvInteger(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val x_zp, ZeroPointInput(ctx, 2, 0, "x_zero_point", "x"));
  SY_ASSIGN_OR_RETURN(Val w_zp, ZeroPointInput(ctx, 3, 1, "w_zero_point", "w"));
  const int rank = ctx.InShape(0).rank();
  SY_ASSIGN_OR_RETURN(Val y, EmitConvInteger(ctx, ctx.In(0), ctx.In(1), x_zp, w_zp));
  SY_ASSIGN_OR_RETURN(y, BackToRank(ctx, y, rank));
  return ctx.SetOutput(0, y);
}

// a_scale * b_scale / y_scale in float32, in ONNX Runtime's order, with a
// per-channel scale shaped `channel_dims` (scalars stay scalars).
absl::StatusOr<Val> Multiplier(NodeContext& ctx, Val a_scale, Val b_scale, Val y_scale,
                               const std::vector<int64_t>& channel_dims) {
  SY_ASSIGN_OR_RETURN(Val a, CastTo(ctx, a_scale, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val b, CastTo(ctx, b_scale, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val y, CastTo(ctx, y_scale, DType::kFloat32));
  if (ctx.Type(b).shape.num_elements() > 1) {
    SY_ASSIGN_OR_RETURN(b, Reshape(ctx, b, channel_dims));
  } else {
    SY_ASSIGN_OR_RETURN(b, Reshape(ctx, b, {}));
  }
  SY_ASSIGN_OR_RETURN(a, Reshape(ctx, a, {}));
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {}));
  SY_ASSIGN_OR_RETURN(Val ab, Op(ctx, "mul", {a, b}));
  return Op(ctx, "div", {ab, y});
}

absl::Status ConvertQLinearMatMul(NodeContext& ctx) {
  const Shape a_shape = ctx.InShape(0);
  const Shape b_shape = ctx.InShape(3);
  const DType a_type = ctx.Type(ctx.In(0)).dtype;
  // Checks: scales positive, zero points of the data's dtype and the
  // scale's shape; a per-tensor, b per-tensor or per column.
  SY_RETURN_IF_ERROR(ReadQuantParams(ctx, {1, 2, "a_scale", "a_zero_point", 1, 0, false},
                                     a_shape, a_type).status());
  SY_RETURN_IF_ERROR(ReadQuantParams(ctx, {4, 5, "b_scale", "b_zero_point", -1, 0, true},
                                     b_shape, ctx.Type(ctx.In(3)).dtype).status());
  SY_ASSIGN_OR_RETURN(Val a_zp, ZeroPointInput(ctx, 2, 0, "a_zero_point", "a"));
  SY_ASSIGN_OR_RETURN(Val b_zp, ZeroPointInput(ctx, 5, 3, "b_zero_point", "b"));
  SY_ASSIGN_OR_RETURN(Val acc, ctx.EmitOne("matmul_integer", {ctx.In(0), ctx.In(3), a_zp, b_zp},
                                           AttrMap()));
  const Shape& out_shape = ctx.Type(acc).shape;
  SY_ASSIGN_OR_RETURN(QuantParams y, ReadQuantParams(ctx, {6, 7, "y_scale", "y_zero_point", 1, 0, false},
                                                     out_shape, a_type));
  SY_ASSIGN_OR_RETURN(Val multiplier,
                      Multiplier(ctx, ctx.In(1), ctx.In(4), ctx.In(6), {b_shape.dims().back()}));
  SY_ASSIGN_OR_RETURN(Val out, Requantize(ctx, acc, multiplier, y));
  return ctx.SetOutput(0, out);
}

absl::Status ConvertQLinearConv(NodeContext& ctx) {
  const Shape x_shape = ctx.InShape(0);
  const Shape w_shape = ctx.InShape(3);
  const DType x_type = ctx.Type(ctx.In(0)).dtype;
  SY_RETURN_IF_ERROR(ReadQuantParams(ctx, {1, 2, "x_scale", "x_zero_point", 1, 0, false},
                                     x_shape, x_type).status());
  SY_RETURN_IF_ERROR(ReadQuantParams(ctx, {4, 5, "w_scale", "w_zero_point", 0, 0, true},
                                     w_shape, ctx.Type(ctx.In(3)).dtype).status());
  SY_ASSIGN_OR_RETURN(Val x_zp, ZeroPointInput(ctx, 2, 0, "x_zero_point", "x"));
  SY_ASSIGN_OR_RETURN(Val w_zp, ZeroPointInput(ctx, 5, 3, "w_zero_point", "w"));
  if (ctx.Type(x_zp).shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input x_zero_point is ", ctx.Type(x_zp).shape.ToString(), "; it must be a scalar"));
  }
  const int64_t channels = w_shape.dim(0);
  Requantization r;
  if (ctx.HasInput(8)) {
    const TensorType& b = ctx.Type(ctx.In(8));
    if (b.dtype != DType::kInt32 || b.shape != Shape({channels})) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input B is ", b.shape.ToString(), " ", DTypeName(b.dtype), "; it must be int32 [",
          channels, "] (one per output channel)"));
    }
    r.bias = ctx.In(8);
  } else {
    r.bias = ctx.Constant(HostArray(Shape({channels}), DType::kInt32,
                                    std::vector<char>(channels * sizeof(int32_t), 0)));
  }
  SY_ASSIGN_OR_RETURN(QuantParams y, ReadQuantParams(ctx, {6, 7, "y_scale", "y_zero_point", 1, 0, false},
                                                     x_shape, x_type));
  SY_ASSIGN_OR_RETURN(r.multiplier,
                      Multiplier(ctx, ctx.In(1), ctx.In(4), ctx.In(6), {channels}));
  SY_ASSIGN_OR_RETURN(Val y_zp, Reshape(ctx, y.zero_point, {}));
  SY_ASSIGN_OR_RETURN(r.output_zero_point, CastTo(ctx, y_zp, y.type));
  SY_ASSIGN_OR_RETURN(Val out, EmitConvInteger(ctx, ctx.In(0), ctx.In(3), x_zp, w_zp, &r));
  SY_ASSIGN_OR_RETURN(out, BackToRank(ctx, out, x_shape.rank()));
  return ctx.SetOutput(0, out);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("MatMulInteger", ConvertMatMulInteger, 2);
SY_REGISTER_ONNX_CONVERTER("ConvInteger", ConvertConvInteger, 2);
SY_REGISTER_ONNX_CONVERTER("QLinearMatMul", ConvertQLinearMatMul, 8);
SY_REGISTER_ONNX_CONVERTER("QLinearConv", ConvertQLinearConv, 8);

}  // namespace onnx_import
}  // namespace switchyard
