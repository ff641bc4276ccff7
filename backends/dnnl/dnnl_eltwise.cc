// The elementwise ops on oneDNN: relu and clip (eltwise_forward) and add
// (binary, same shapes, with a relu or clip post-op), each in place over its
// first operand when nothing reads that afterwards.

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

// The first operand's own buffer when the node may overwrite it, else a new
// buffer of `md`.
MemRef InPlaceOr(PartitionBuilder& b, const Node& node, const MemRef& first,
                 const dnnl::memory::desc& md) {
  const bool in_place = b.IsOwnBuffer(node.inputs[0], first) &&
                        b.Reusable(node.inputs[0], b.Position(node));
  return in_place ? first : b.NewBuffer(md);
}

}  // namespace

absl::Status CheckAdd(const Node& node, const Graph&, const NodeShapes& shapes) {
  if (shapes.in[0] != shapes.in[1]) {
    return Refuse(node, absl::StrCat(
        "operands ", shapes.in[0].ToString(), " and ", shapes.in[1].ToString(),
        " differ; the oneDNN device adds same-shape tensors only (no "
        "broadcasting)"));
  }
  return absl::OkStatus();
}

absl::Status LowerAdd(PartitionBuilder& b, const FusionGroup& g,
                      const Node& node, ValueId out) {
  SY_ASSIGN_OR_RETURN(MemRef a, b.Natural(node.inputs[0]));
  SY_ASSIGN_OR_RETURN(MemRef other, b.As(node.inputs[1], a.md));
  dnnl::binary::desc desc(dnnl::algorithm::binary_add, a.md, a.md, a.md);
  dnnl::binary::primitive_desc pd(desc, PrimitiveAttr(g),
                                  b.engine());
  // x + x reads its operand twice: never in place.
  const MemRef d = node.inputs[0] != node.inputs[1]
                       ? InPlaceOr(b, node, a, a.md)
                       : b.NewBuffer(a.md);
  b.AddStep(dnnl::binary(pd),
            {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, other}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
  b.Define(out, d);
  return absl::OkStatus();
}

// clip(x, low, high) as oneDNN's clip_v2 (low <= high only: ONNX lets high
// win over a larger low, which oneDNN does not promise).
absl::Status CheckClip(const Node& node, const Graph&, const NodeShapes&) {
  SY_ASSIGN_OR_RETURN(ClipAttrs clip, ClipAttrs::FromAttrMap(node.attrs));
  if (clip.min > clip.max) {
    return Refuse(node, absl::StrCat("min ", clip.min, " > max ", clip.max,
                                     ": the oneDNN device clips with min <= max only"));
  }
  return absl::OkStatus();
}

absl::Status LowerClip(PartitionBuilder& b, const FusionGroup&, const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(ClipAttrs clip, ClipAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                   dnnl::algorithm::eltwise_clip_v2, s.md,
                                   static_cast<float>(clip.min), static_cast<float>(clip.max));
  dnnl::eltwise_forward::primitive_desc pd(desc, PrimitiveAttr(), b.engine());
  b.AddSourceStep<dnnl::eltwise_forward>(pd, node, s, InPlaceOr(b, node, s, s.md),
                                         node.outputs[0]);
  return absl::OkStatus();
}

absl::Status LowerRelu(PartitionBuilder& b, const FusionGroup&,
                       const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                   dnnl::algorithm::eltwise_relu, s.md, 0.f);
  dnnl::eltwise_forward::primitive_desc pd(desc, PrimitiveAttr(), b.engine());
  b.AddSourceStep<dnnl::eltwise_forward>(pd, node, s,
                                         InPlaceOr(b, node, s, s.md),
                                         node.outputs[0]);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
