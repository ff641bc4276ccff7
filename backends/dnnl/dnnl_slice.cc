// slice with positive steps on oneDNN: a reorder from a window of the
// plain source (its strides times each step, an offset, smaller dims) into
// a new plain buffer. r3d_18's strided 3-D convolutions take every other
// frame this way. Negative steps (reversals) are refused and run on the
// cpu backend.

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace onednn {

absl::Status CheckSlice(const Node& node, const Graph&,
                        const NodeShapes& shapes) {
  absl::StatusOr<SliceAttrs> a = SliceAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  for (int64_t step : a->StepsOrDefault()) {
    if (step < 1) {
      return Refuse(
          node,
          absl::StrCat(
              "steps [", absl::StrJoin(a->StepsOrDefault(), ", "),
              "]: the oneDNN device slices forward only (every step 1 or more); "
              "this one runs on the cpu backend"));
    }
  }
  absl::StatusOr<std::vector<SliceDim>> dims = SliceGeometry(*a, shapes.in[0]);
  if (!dims.ok()) return Refuse(node, std::string(dims.status().message()));
  return absl::OkStatus();
}

absl::Status LowerSlice(PartitionBuilder& b, const FusionGroup&,
                        const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(SliceAttrs a, SliceAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(std::vector<SliceDim> window,
                      SliceGeometry(a, *graph.value(node.inputs[0]).shape));
  Dims counts, spans, offsets;
  for (const SliceDim& d : window) {
    counts.push_back(d.count);
    // The source elements the window reaches (at least 1 for an empty one).
    spans.push_back(d.count == 0 ? 0 : (d.count - 1) * d.step + 1);
    offsets.push_back(d.start);
  }
  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[0]));
  // The window from `start` over `span` elements, then every step-th of
  // them: the same offset, dims `counts`, strides times the steps.
  dnnl_memory_desc_t strided = src.md.submemory_desc(spans, offsets).data;
  for (size_t d = 0; d < window.size(); ++d) {
    strided.dims[d] = strided.padded_dims[d] = counts[d];
    // One element reads no stride: a huge step on it must not overflow.
    if (counts[d] > 1) strided.format_desc.blocking.strides[d] *= window[d].step;
  }
  src.md = dnnl::memory::desc(strided);
  MemRef dst = b.NewBuffer(Plain(counts));
  b.AddReorder(src, dst, absl::StrCat(node.name, ": slice"));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
