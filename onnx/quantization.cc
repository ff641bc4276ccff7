#include "onnx/quantization.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/float_precision.h"

namespace switchyard {
namespace onnx_import {
namespace {

bool ScalarLike(const Shape& s) {
  return s.rank() == 0 || (s.rank() == 1 && s.dim(0) == 1);
}

// A float8 zero point must be known at import and 0 (ONNX Runtime ignores
// it; the specification's tests only use 0).
absl::Status CheckFloat8ZeroPoint(NodeContext& ctx, Val zero_point, const QuantInputs& in) {
  const HostArray* host = ctx.Host(zero_point);
  if (host == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "input ", in.zero_point_name, " is a computed ", DTypeName(ctx.Type(zero_point).dtype),
        " value; Switchyard takes a float8 zero point only as a constant 0 (make it an "
        "initializer)"));
  }
  for (int64_t i = 0; i < host->num_elements(); ++i) {
    const double v = host->ElementAsDouble(i);
    if (v != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.zero_point_name, " has value ", v, " at index ", i,
          "; a float8 zero point must be 0 (float8 quantization has no offset)"));
    }
  }
  return absl::OkStatus();
}

// A scale known at import must be positive and finite: a zero scale divides
// by zero, a negative one flips the values, and both come only from a
// broken quantizer.
absl::Status CheckScaleValues(NodeContext& ctx, Val scale, const char* name) {
  const HostArray* host = ctx.Host(scale);
  if (host == nullptr) return absl::OkStatus();
  for (int64_t i = 0; i < host->num_elements(); ++i) {
    const double v = host->ElementAsDouble(i);
    if (!(v > 0) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", name, " has value ", v, " at index ", i,
          "; a quantization scale must be positive and finite (the model's "
          "quantizer wrote a degenerate scale: re-quantize the model)"));
    }
  }
  return absl::OkStatus();
}

// `v` as [1, ..., n, ..., 1] of rank `rank` with n at `axis`.
absl::StatusOr<Val> AlongAxis(NodeContext& ctx, Val v, int rank, int axis) {
  std::vector<int64_t> dims(rank, 1);
  dims[axis] = ctx.Type(v).shape.num_elements();
  return Reshape(ctx, v, dims);
}

// Blocked scales repeated block_size times along `axis` up to `length`.
absl::StatusOr<Val> RepeatBlocks(NodeContext& ctx, Val v, int axis, int64_t length,
                                 int64_t block_size) {
  std::vector<int64_t> index(length);
  for (int64_t j = 0; j < length; ++j) index[j] = j / block_size;
  Val indices = ctx.Constant(HostArray::Of<int64_t>(
      Shape({length}), absl::Span<const int64_t>(index)));
  return Op(ctx, "gather", {v, indices}, Attrs({{"axis", int64_t{axis}}}));
}

// NaN replaced by `value` (clip keeps NaN, and a NaN cast to an integer is
// undefined in C++).
absl::StatusOr<Val> NanTo(NodeContext& ctx, Val v, double value) {
  SY_ASSIGN_OR_RETURN(Val is_number, Op(ctx, "equal", {v, v}));
  return Op(ctx, "where", {is_number, v, Scalar(ctx, value, DType::kFloat32)});
}

// round_half_even(v) + zero point, saturated to p.type; NaN becomes the
// type's minimum, as ONNX Runtime's CPU provider gives for float32 input.
absl::StatusOr<Val> RoundToQuantized(NodeContext& ctx, Val v, const QuantParams& p) {
  SY_ASSIGN_OR_RETURN(Val rounded, Op(ctx, "round", {v}));
  SY_ASSIGN_OR_RETURN(Val zero_point, CastTo(ctx, p.zero_point, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val shifted, Op(ctx, "add", {rounded, zero_point}));
  const double lo = static_cast<double>(IntegerMin(p.type));
  const double hi = static_cast<double>(IntegerMax(p.type));
  SY_ASSIGN_OR_RETURN(Val defined, NanTo(ctx, shifted, lo));
  SY_ASSIGN_OR_RETURN(Val saturated,
                      Op(ctx, "clip", {defined}, Attrs({{"min", lo}, {"max", hi}})));
  return CastTo(ctx, saturated, p.type);
}

}  // namespace

bool IsQuantizedDType(DType d) {
  switch (d) {
    case DType::kUInt8: case DType::kInt8: case DType::kUInt16: case DType::kInt16:
    case DType::kUInt4: case DType::kInt4:
      return true;
    default:
      return IsFloat8(d);
  }
}

Val ZeroOf(NodeContext& ctx, DType type) {
  std::vector<char> bytes(DTypeSize(type), 0);
  return ctx.Constant(HostArray(Shape(), type, std::move(bytes)));
}

absl::StatusOr<QuantParams> ReadQuantParams(NodeContext& ctx, const QuantInputs& in,
                                            const Shape& data, DType type) {
  QuantParams p;
  Val scale = ctx.In(in.scale);
  const TensorType scale_type = ctx.Type(scale);
  p.scale_type = scale_type.dtype;
  if (!IsFloatingPoint(scale_type.dtype) && scale_type.dtype != DType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", in.scale_name, " is ", DTypeName(scale_type.dtype),
        "; a scale is float32, float16 or bfloat16"));
  }
  SY_RETURN_IF_ERROR(CheckScaleValues(ctx, scale, in.scale_name));
  Val zero_point = kNoVal;
  if (in.zero_point >= 0 && ctx.HasInput(in.zero_point)) {
    zero_point = ctx.In(in.zero_point);
    const TensorType& z = ctx.Type(zero_point);
    if (!IsQuantizedDType(z.dtype) && z.dtype != DType::kInt32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.zero_point_name, " is ", DTypeName(z.dtype),
          "; a zero point has the quantized tensor's dtype: uint8, int8, uint16, int16, "
          "uint4, int4, a float8 type (int32 to dequantize int32)"));
    }
    if (IsFloat8(z.dtype)) SY_RETURN_IF_ERROR(CheckFloat8ZeroPoint(ctx, zero_point, in));
    const bool same = z.shape == scale_type.shape ||
                      (ScalarLike(z.shape) && ScalarLike(scale_type.shape));
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.zero_point_name, " is ", z.shape.ToString(), " but ",
          in.scale_name, " is ", scale_type.shape.ToString(),
          "; a zero point has its scale's shape"));
    }
    type = z.dtype;
  }
  p.type = type;

  const Shape& s = scale_type.shape;
  const int rank = data.rank();
  if (in.block_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute block_size is ", in.block_size,
        "; it is positive for blocked quantization, 0 otherwise"));
  }
  if (in.block_size == 0 && ScalarLike(s)) {
    // Per-tensor: scalars broadcast as they are.
  } else if (!in.per_axis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", in.scale_name, " is ", s.ToString(), "; this op takes a scalar scale"));
  } else if (in.block_size == 0 && s.rank() == 1) {
    const int64_t axis_attr = rank == 1 ? 0 : in.axis;
    SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "attribute axis"));
    if (s.dim(0) != data.dim(axis)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.scale_name, " has ", s.dim(0), " values but axis ", axis,
          " of the data ", data.ToString(), " has ", data.dim(axis),
          " (per-axis quantization takes one scale per element along axis)"));
    }
    SY_ASSIGN_OR_RETURN(scale, AlongAxis(ctx, scale, rank, static_cast<int>(axis)));
    if (zero_point != kNoVal) {
      SY_ASSIGN_OR_RETURN(zero_point,
                          AlongAxis(ctx, zero_point, rank, static_cast<int>(axis)));
    }
  } else if (in.block_size > 0) {
    SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(in.axis, rank, "attribute axis"));
    const int64_t length = data.dim(axis);
    const int64_t blocks = length / in.block_size + (length % in.block_size != 0);
    bool fits = s.rank() == rank;
    for (int d = 0; fits && d < rank; ++d) {
      fits = s.dim(d) == (d == axis ? blocks : data.dim(d));
    }
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.scale_name, " is ", s.ToString(), " but blocked quantization of ",
          data.ToString(), " along axis ", axis, " with block_size ", in.block_size,
          " takes the data's shape with ", blocks, " (ceil(", length, " / ",
          in.block_size, ")) at that axis"));
    }
    SY_ASSIGN_OR_RETURN(scale, RepeatBlocks(ctx, scale, static_cast<int>(axis), length,
                                            in.block_size));
    if (zero_point != kNoVal) {
      SY_ASSIGN_OR_RETURN(zero_point, RepeatBlocks(ctx, zero_point, static_cast<int>(axis),
                                                   length, in.block_size));
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", in.scale_name, " is ", s.ToString(),
        " with block_size 0; a scale is a scalar (per-tensor), 1-D (per-axis) or, with "
        "block_size > 0, of the data's rank (blocked)"));
  }
  SY_ASSIGN_OR_RETURN(p.scale, CastTo(ctx, scale, DType::kFloat32));
  if (zero_point == kNoVal || IsFloat8(type)) zero_point = ZeroOf(ctx, DType::kInt32);
  SY_ASSIGN_OR_RETURN(p.zero_point, CastTo(ctx, zero_point, DType::kInt32));
  return p;
}

namespace {

// One scale and one zero point of an 8-bit type: what quantize_linear and
// dequantize_linear take, in one pass each.
bool PerTensorEightBit(NodeContext& ctx, const QuantParams& p) {
  return (p.type == DType::kUInt8 || p.type == DType::kInt8) &&
         ctx.Type(p.scale).shape.num_elements() == 1 &&
         ctx.Type(p.zero_point).shape.num_elements() == 1;
}

}  // namespace

absl::StatusOr<Val> Quantize(NodeContext& ctx, Val x, const QuantParams& p) {
  SY_ASSIGN_OR_RETURN(Val xf, CastTo(ctx, x, DType::kFloat32));
  if (PerTensorEightBit(ctx, p)) {
    SY_ASSIGN_OR_RETURN(Val zero_point, CastTo(ctx, p.zero_point, p.type));
    return ctx.EmitOne("quantize_linear", {xf, p.scale, zero_point}, AttrMap());
  }
  SY_ASSIGN_OR_RETURN(Val scaled, Op(ctx, "div", {xf, p.scale}));
  if (IsFloat8(p.type)) {
    // The cast rounds to nearest even and saturates (or not) as asked.
    return Op(ctx, "cast", {scaled},
              Attrs({{"to", DTypeName(p.type)}, {"saturate", p.saturate}}));
  }
  return RoundToQuantized(ctx, scaled, p);
}

absl::StatusOr<Val> Dequantize(NodeContext& ctx, Val q, const QuantParams& p, DType out) {
  if (IsFloat8(p.type)) {
    SY_ASSIGN_OR_RETURN(Val real, CastTo(ctx, q, DType::kFloat32));
    SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {real, p.scale}));
    return CastTo(ctx, y, out);
  }
  if (PerTensorEightBit(ctx, p) && ctx.Type(q).dtype == p.type) {
    SY_ASSIGN_OR_RETURN(Val zero_point, CastTo(ctx, p.zero_point, p.type));
    SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("dequantize_linear", {q, p.scale, zero_point},
                                           AttrMap()));
    return CastTo(ctx, y, out);
  }
  SY_ASSIGN_OR_RETURN(Val wide, CastTo(ctx, q, DType::kInt32));
  SY_ASSIGN_OR_RETURN(Val centred, Op(ctx, "sub", {wide, p.zero_point}));
  SY_ASSIGN_OR_RETURN(Val real, CastTo(ctx, centred, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {real, p.scale}));
  return CastTo(ctx, y, out);
}

absl::StatusOr<Val> Requantize(NodeContext& ctx, Val accumulator, Val multiplier,
                               const QuantParams& out) {
  SY_ASSIGN_OR_RETURN(Val real, CastTo(ctx, accumulator, DType::kFloat32));
  SY_ASSIGN_OR_RETURN(Val scaled, Op(ctx, "mul", {real, multiplier}));
  return RoundToQuantized(ctx, scaled, out);
}

absl::StatusOr<DynamicQuantized> DynamicQuantize(NodeContext& ctx, Val x) {
  SY_ASSIGN_OR_RETURN(std::vector<Val> out,
                      ctx.Emit("dynamic_quantize_linear", {x}, AttrMap(), 3));
  DynamicQuantized q;
  q.y = out[0];
  q.scale = out[1];
  q.zero_point = out[2];
  return q;
}

}  // namespace onnx_import
}  // namespace switchyard
