// concat on oneDNN's concat primitive, along any axis. When every source of
// a 4-D concat has the same layout (DenseNet joins nChw8c/nChw16c outputs
// of convolutions along channels), the sources are read as they are and
// the output keeps that layout, so nothing is reordered; a blocked layout
// qualifies only when every source's channel count is a whole number of
// blocks (else the blocks would carry padding into the middle of the
// output). Otherwise every source is read plain and the output is plain.

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// The 4-D layouts a source may share, with their channel block (1: none).
struct SharedLayout {
  Tag tag;
  int64_t channel_block;
};
constexpr SharedLayout kSharedLayouts[] = {
    {Tag::nchw, 1}, {Tag::nhwc, 1}, {Tag::nChw8c, 8}, {Tag::nChw16c, 16}};

// The layout every one of `sources` (4-D) has, when they share one the
// concat can keep; nullopt otherwise.
std::optional<Tag> CommonLayout(const std::vector<MemRef>& sources, int axis) {
  for (const SharedLayout& layout : kSharedLayouts) {
    bool all = true;
    for (const MemRef& s : sources) {
      const Dims d = s.md.dims();
      const bool whole_blocks = axis != 1 || layout.channel_block == 1 ||
                                d[1] % layout.channel_block == 0;
      if (d.size() != 4 || !whole_blocks ||
          s.md != memory::desc(d, kF32, layout.tag)) {
        all = false;
        break;
      }
    }
    if (all) return layout.tag;
  }
  return std::nullopt;
}

}  // namespace

absl::Status CheckConcat(const Node& node, const Graph&,
                         const NodeShapes& shapes) {
  absl::StatusOr<ConcatAttrs> a = ConcatAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  absl::StatusOr<int> axis = ops_internal::WrapDim(
      a->axis, static_cast<int>(shapes.out.rank()), "axis");
  if (!axis.ok()) return Refuse(node, std::string(axis.status().message()));
  for (const Shape& in : shapes.in) {
    if (in.rank() != shapes.out.rank()) {
      return Refuse(node, absl::StrCat("operand ", in.ToString(),
                                       " does not have the output's rank (",
                                       shapes.out.ToString(), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status LowerConcat(PartitionBuilder& b, const FusionGroup&,
                         const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(ConcatAttrs a, ConcatAttrs::FromAttrMap(node.attrs));
  const Dims out_dims = ToDims(*graph.value(node.outputs[0]).shape);
  SY_ASSIGN_OR_RETURN(
      int axis,
      ops_internal::WrapDim(a.axis, static_cast<int>(out_dims.size()), "axis"));
  std::vector<MemRef> sources;
  for (ValueId in : node.inputs) {
    SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(in));
    sources.push_back(s);
  }
  memory::desc dst_md = Plain(out_dims);
  std::optional<Tag> layout;
  if (out_dims.size() == 4) layout = CommonLayout(sources, axis);
  if (layout) {
    dst_md = memory::desc(out_dims, kF32, *layout);
  } else {
    for (size_t i = 0; i < sources.size(); ++i) {
      SY_ASSIGN_OR_RETURN(sources[i], b.PlainOf(node.inputs[i]));
    }
  }
  std::vector<memory::desc> source_mds;
  for (const MemRef& s : sources) source_mds.push_back(s.md);
  dnnl::concat::primitive_desc pd(dst_md, axis, source_mds, b.engine(),
                                  PrimitiveAttr());
  MemRef dst = b.NewBuffer(pd.dst_desc());
  std::vector<std::pair<int, MemRef>> args;
  for (size_t i = 0; i < sources.size(); ++i) {
    args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), sources[i]});
  }
  args.push_back({DNNL_ARG_DST, dst});
  b.AddStep(dnnl::concat(pd), std::move(args), pd.scratchpad_desc(),
            Describe(pd, node));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
