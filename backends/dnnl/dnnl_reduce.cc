// reduce_mean on oneDNN's reduction primitive (reduction_mean), over any
// axes: the plain source, and a plain destination of the source's rank with
// each reduced axis 1. Without keepdims the output is the same row-major
// bytes under the shorter shape. A reduction over axes of length 1 only
// changes nothing, so it is a view.

#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace onednn {

absl::Status CheckReduceMean(const Node& node, const Graph&,
                             const NodeShapes& shapes) {
  absl::StatusOr<ReduceAttrs> a =
      ReduceAttrs::FromAttrMap(node.attrs, "reduce_mean");
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  absl::StatusOr<std::vector<bool>> reduced =
      ReducedAxes(a->axes, shapes.in[0]);
  if (!reduced.ok()) {
    return Refuse(node, std::string(reduced.status().message()));
  }
  return absl::OkStatus();
}

absl::Status LowerReduceMean(PartitionBuilder& b, const FusionGroup&,
                             const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(ReduceAttrs a,
                      ReduceAttrs::FromAttrMap(node.attrs, "reduce_mean"));
  const Shape& input = *graph.value(node.inputs[0]).shape;
  SY_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(a.axes, input));
  if (ReducedCount(input, reduced) == 1) {
    return b.Alias(out, node.inputs[0]);  // every reduced axis has length 1
  }
  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[0]));
  const Dims kept = ToDims(ReducedShape(input, reduced, /*keepdims=*/true));
  dnnl::reduction::desc desc(dnnl::algorithm::reduction_mean, src.md,
                             Plain(kept), /*p=*/0.f, /*eps=*/0.f);
  dnnl::reduction::primitive_desc pd(desc, PrimitiveAttr(), b.engine());
  MemRef dst = b.NewBuffer(pd.dst_desc());
  b.AddStep(dnnl::reduction(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}},
            pd.scratchpad_desc(), Describe(pd, node));
  dst.md = Plain(ToDims(*graph.value(node.outputs[0]).shape));  // same bytes
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
