// linear on oneDNN: inner_product_forward with an eltwise post-op (relu,
// gelu, SiLU, ...: dnnl_fusion.h). A flatten of
// a blocked NCHW value into the linear is read in its own layout, with the
// weights viewed as [out, C, H, W], so the activation is never reordered.

#include <optional>

#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

absl::Status CheckLinear(const Node& node, const Graph& graph,
                         const NodeShapes&) {
  return CheckConstants(node, graph, 1);
}

absl::Status LowerLinear(PartitionBuilder& b, const FusionGroup& g,
                         const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  const ValueId x = node.inputs[0];
  const Dims w = ToDims(*graph.value(node.inputs[1]).shape);  // [out, in]
  const Dims ydims = ToDims(*graph.value(node.outputs[0]).shape);
  const memory::desc bias_md = BiasDesc(graph, node);
  SY_ASSIGN_OR_RETURN(PartitionBuilder::Val * v, b.Get(x));
  std::optional<dnnl::inner_product_forward::primitive_desc> pd;
  MemRef s;
  memory::desc wplain;
  const Dims phys = v->ref.md.dims();
  if (phys.size() == 4 && v->logical.size() == 2 && phys[0] == v->logical[0] &&
      !IsPlain(v->ref.md)) {
    const Dims w4 = {w[0], phys[1], phys[2], phys[3]};
    try {
      dnnl::inner_product_forward::desc desc(
          dnnl::prop_kind::forward_inference, v->ref.md,
          memory::desc(w4, kF32, Tag::any), bias_md,
          memory::desc({phys[0], w[0]}, kF32, Tag::any));
      pd.emplace(desc, PrimitiveAttr(g), b.engine());
      s = v->ref;
      wplain = Plain(w4);
    } catch (const dnnl::error&) {
      pd.reset();  // no implementation for that layout: plain below
    }
  }
  if (!pd) {
    SY_ASSIGN_OR_RETURN(s, b.PlainOf(x));
    const Dims rows = {Product(v->logical) / w[1], w[1]};
    s.md = Plain(rows);
    wplain = Plain(w);
    dnnl::inner_product_forward::desc desc(
        dnnl::prop_kind::forward_inference, s.md,
        memory::desc(w, kF32, Tag::any), bias_md,
        memory::desc({rows[0], w[0]}, kF32,
                     ydims.size() == 2 ? Tag::any : Tag::ab));
    pd.emplace(desc, PrimitiveAttr(g), b.engine());
  }
  SY_ASSIGN_OR_RETURN(MemRef wm,
                      b.Owned(node.inputs[1], wplain, pd->weights_desc()));
  MemRef d = b.NewBuffer(pd->dst_desc());
  return b.AddWeightedStep(dnnl::inner_product_forward(*pd), node, s, wm, d,
                           out, pd->scratchpad_desc(), Describe(*pd, node));
}

}  // namespace onednn
}  // namespace switchyard
