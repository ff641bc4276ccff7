#include "onnx/convert_util.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onnx_import {

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", axis, " is out of range for rank ", rank, " (valid: ",
        -rank, " to ", rank - 1, ")"));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<AttrMap> OnnxAttrMap(NodeContext& ctx,
                                    const std::vector<AttrSpec>& specs,
                                    const OnnxAttrNames& names,
                                    AttrMap given) {
  AttrMap attrs = std::move(given);
  for (const auto& [onnx_name, name] : names) {
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InternalError(absl::StrCat(
          "the ", ctx.op_type(), " converter maps ONNX attribute '", onnx_name,
          "' to '", name, "', which the op's attribute struct does not declare"));
    }
    if (!ctx.HasAttr(onnx_name)) continue;
    switch (spec->type) {
      case AttrType::kInt: {
        SY_ASSIGN_OR_RETURN(int64_t v, ctx.Int(onnx_name, 0));
        attrs.Set(name, v);
        break;
      }
      case AttrType::kBool: {
        SY_ASSIGN_OR_RETURN(int64_t v, ctx.Int(onnx_name, 0));
        attrs.Set(name, v != 0);
        break;
      }
      case AttrType::kFloat: {
        SY_ASSIGN_OR_RETURN(float v, ctx.Float(onnx_name, 0.0f));
        attrs.Set(name, double{v});
        break;
      }
      case AttrType::kString: {
        SY_ASSIGN_OR_RETURN(std::string v, ctx.String(onnx_name, ""));
        attrs.Set(name, v);
        break;
      }
      case AttrType::kInts: {
        SY_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.Ints(onnx_name));
        attrs.Set(name, v);
        break;
      }
      case AttrType::kFloats: {
        SY_ASSIGN_OR_RETURN(std::vector<float> v, ctx.Floats(onnx_name));
        attrs.Set(name, std::vector<double>(v.begin(), v.end()));
        break;
      }
    }
  }
  return attrs;
}

absl::Status EmitUnary(NodeContext& ctx, const std::string& op,
                       const AttrMap& attrs) {
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne(op, {ctx.In(0)}, attrs));
  return ctx.SetOutput(0, y);
}

absl::Status Alias(NodeContext& ctx, int input) {
  return ctx.SetOutput(0, ctx.In(input));
}

absl::Status RequireUnusedOutput(NodeContext& ctx, int i, const char* what) {
  if (ctx.OutputUsed(i)) {
    return absl::UnimplementedError(absl::StrCat(
        "output ", i, " (", what, ") is used by the graph; Switchyard imports ",
        ctx.op_type(), " for inference and does not compute it"));
  }
  return SkipUnusedOutput(ctx, i);
}

absl::Status SkipUnusedOutput(NodeContext& ctx, int i) {
  // Named but read by nothing: it has no value, and nothing will ask.
  if (i < ctx.num_outputs() && !ctx.OutputUsed(i)) return ctx.SetOutput(i, kNoVal);
  return absl::OkStatus();
}

Val Scalar(NodeContext& ctx, double value, DType dtype) {
  std::vector<char> bytes(DTypeSize(dtype));
  SetElementFromDouble(bytes.data(), dtype, 0, value);
  return ctx.Constant(HostArray(Shape(), dtype, std::move(bytes)));
}

absl::StatusOr<Val> Op(NodeContext& ctx, const char* op, std::vector<Val> operands,
                       const AttrMap& attrs) {
  return ctx.EmitOne(op, operands, attrs);
}

absl::StatusOr<Val> Reshape(NodeContext& ctx, Val value,
                            const std::vector<int64_t>& dims) {
  if (ctx.Type(value).shape == Shape(dims)) return value;
  return ctx.EmitOne("reshape", {value}, Attrs({{"shape", dims}}));
}

}  // namespace onnx_import
}  // namespace switchyard
