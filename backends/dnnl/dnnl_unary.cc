// The unary elementwise ops on oneDNN (relu, clip, sigmoid, tanh, sqrt,
// abs, leaky_relu, hard_swish, gelu; hard_sigmoid is two): one
// eltwise_forward each, the
// algorithm from dnnl_eltwise_algorithm.h, in place over its operand when
// nothing reads that afterwards. After a conv2d, linear or binary op they
// are that primitive's post-op instead (dnnl_fusion.h). A sigmoid with the
// mul of its operand by it is SiLU, one eltwise swish.

#include "backends/dnnl/dnnl_eltwise_algorithm.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onednn {

absl::Status CheckUnary(const Node& node, const Graph&, const NodeShapes& shapes) {
  if (shapes.in.size() != 1) {
    return Refuse(node, "a unary elementwise op on oneDNN takes one operand");
  }
  return EltwiseAlgorithmOf(node).status();
}

// A group is the op alone, or SiLU: a sigmoid and the mul of its operand
// by it, one swish writing the mul's output `out`.
absl::Status LowerUnary(PartitionBuilder& b, const FusionGroup& g,
                        const Node& node, ValueId out) {
  EltwiseAlgorithm e;
  if (g.silu) {
    e = Silu();
  } else {
    SY_ASSIGN_OR_RETURN(e, EltwiseAlgorithmOf(node));
  }
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                   e.algorithm, s.md, e.alpha, e.beta);
  dnnl::eltwise_forward::primitive_desc pd(desc, PrimitiveAttr(), b.engine());
  // In place when the group's last node reads the operand for the last time.
  const Node& last = b.GroupNode(g, g.count - 1);
  const MemRef d = InPlaceOr(b, last, node.inputs[0], s, s.md);
  b.AddSourceStep<dnnl::eltwise_forward>(pd, node, s, d, out);
  if (e.then_clip_to_unit) {
    // The second formula over the first's result, in place.
    dnnl::eltwise_forward::desc clip(dnnl::prop_kind::forward_inference,
                                     dnnl::algorithm::eltwise_clip_v2, d.md, 0.0f, 1.0f);
    dnnl::eltwise_forward::primitive_desc clip_pd(clip, PrimitiveAttr(), b.engine());
    b.AddSourceStep<dnnl::eltwise_forward>(clip_pd, node, d, d, out);
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
