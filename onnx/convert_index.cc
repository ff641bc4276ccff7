// ONNX's ops that read or write at positions given by data: GatherElements,
// GatherND, ScatterElements, ScatterND (the indices are checked by the
// kernels at run time, ops/gather_scatter_geometry.h) and OneHot (whose
// depth, setting the output's shape, must be known at import).

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/one_hot_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status Emit(NodeContext& ctx, const char* op, std::vector<Val> operands,
                  const AttrMap& attrs) {
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne(op, operands, attrs));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertGatherElements(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(GatherElementsAttrs a,
                      OnnxAttrs<GatherElementsAttrs>(ctx, {{"axis", "axis"}}));
  return Emit(ctx, "gather_elements", {ctx.In(0), ctx.In(1)}, a.ToAttrMap());
}

absl::Status ConvertGatherNd(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(GatherNdAttrs a,
                      OnnxAttrs<GatherNdAttrs>(ctx, {{"batch_dims", "batch_dims"}}));
  return Emit(ctx, "gather_nd", {ctx.In(0), ctx.In(1)}, a.ToAttrMap());
}

absl::Status ConvertScatterElements(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ScatterElementsAttrs a,
                      OnnxAttrs<ScatterElementsAttrs>(
                          ctx, {{"axis", "axis"}, {"reduction", "reduction"}}));
  return Emit(ctx, "scatter_elements", {ctx.In(0), ctx.In(1), ctx.In(2)},
              a.ToAttrMap());
}

absl::Status ConvertScatterNd(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ScatterNdAttrs a,
                      OnnxAttrs<ScatterNdAttrs>(ctx, {{"reduction", "reduction"}}));
  return Emit(ctx, "scatter_nd", {ctx.In(0), ctx.In(1), ctx.In(2)}, a.ToAttrMap());
}

// OneHot(indices, depth, values): depth is one number of any type (ONNX
// casts it to int64), needed at import; values stays an operand.
absl::Status ConvertOneHot(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<double> depth, ctx.ConstDoubles(1, "depth"));
  if (depth.size() != 1 || !std::isfinite(depth[0])) {
    return absl::InvalidArgumentError(
        "depth must be one finite number (the class count)");
  }
  const double d = std::trunc(depth[0]);
  if (d < 1 || d > static_cast<double>(kMaxOneHotDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "depth is ", depth[0], "; OneHot takes 1 to ", kMaxOneHotDepth));
  }
  SY_ASSIGN_OR_RETURN(OneHotAttrs a,
                      OnnxAttrs<OneHotAttrs>(ctx, {{"axis", "axis"}},
                                             Attrs({{"depth", static_cast<int64_t>(d)}})));
  return Emit(ctx, "one_hot", {ctx.In(0), ctx.In(2)}, a.ToAttrMap());
}

SY_REGISTER_ONNX_CONVERTER("GatherElements", ConvertGatherElements, 2);
SY_REGISTER_ONNX_CONVERTER("GatherND", ConvertGatherNd, 2);
SY_REGISTER_ONNX_CONVERTER("ScatterElements", ConvertScatterElements, 3);
SY_REGISTER_ONNX_CONVERTER("ScatterND", ConvertScatterNd, 3);
SY_REGISTER_ONNX_CONVERTER("OneHot", ConvertOneHot, 3);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
