// concat on oneDNN's concat primitive, along any axis. When every source of
// a 4-D concat has the same layout (DenseNet joins nChw8c/nChw16c outputs
// of convolutions along channels), the sources are read as they are and
// the output keeps that layout, so nothing is reordered; a blocked layout
// qualifies only when every source's channel count is a whole number of
// blocks (else the blocks would carry padding into the middle of the
// output). Otherwise every source is read plain and the output is plain.
// Channel concats of sources in mixed layouts, and those whose sources can
// be written in place inside the output (batch 1), are writes into slices
// of the output instead (dnnl_concat_slices.h).
//
// A concat whose only reader is a batch_norm (and relu) is one host pass
// with them when its sources share a layout (dnnl_concat_norm.h).

#include <cmath>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_concat_norm.h"
#include "backends/dnnl/dnnl_concat_slices.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// The layout every one of `sources` (4-D) has, when they share one the
// concat can keep; nullopt otherwise.
std::optional<Tag> CommonLayout(const std::vector<MemRef>& sources, int axis) {
  for (const ConcatLayout& layout : kConcatLayouts) {
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

namespace {

// The host pass's layout for oneDNN tag `tag`.
ConcatNormLayout NormLayout(Tag tag) {
  switch (tag) {
    case Tag::nchw: return ConcatNormLayout::kNchw;
    case Tag::nChw8c: return ConcatNormLayout::kBlocked8;
    case Tag::nChw16c: return ConcatNormLayout::kBlocked16;
    default: return ConcatNormLayout::kNhwc;
  }
}


// The concat `node` and the batch_norm (and relu) of group `g` as one host
// pass, when the sources share a 4-D layout and the concat is along
// channels; false (nothing added) otherwise.
absl::StatusOr<bool> LowerConcatNormOnHost(PartitionBuilder& b, const FusionGroup& g,
                                           const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(ConcatAttrs a, ConcatAttrs::FromAttrMap(node.attrs));
  const Dims out_dims = ToDims(*graph.value(node.outputs[0]).shape);
  if (out_dims.size() != 4) return false;
  SY_ASSIGN_OR_RETURN(int axis, ops_internal::WrapDim(a.axis, 4, "axis"));
  if (axis != 1) return false;
  std::vector<MemRef> sources;
  for (ValueId in : node.inputs) {
    SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(in));
    sources.push_back(s);
  }
  const std::optional<Tag> layout = CommonLayout(sources, axis);
  if (!layout) return false;

  const Node& norm = b.GroupNode(g, 1);
  SY_ASSIGN_OR_RETURN(BatchNormAttrs na, BatchNormAttrs::FromAttrMap(norm.attrs));
  // Operands: input, weight (scale), bias (shift), running_mean, running_var.
  SY_ASSIGN_OR_RETURN(std::vector<float> gamma, b.ConstantValues(norm.inputs[1]));
  SY_ASSIGN_OR_RETURN(std::vector<float> beta, b.ConstantValues(norm.inputs[2]));
  SY_ASSIGN_OR_RETURN(std::vector<float> mean, b.ConstantValues(norm.inputs[3]));
  SY_ASSIGN_OR_RETURN(std::vector<float> var, b.ConstantValues(norm.inputs[4]));
  const size_t channels = static_cast<size_t>(out_dims[1]);
  if (gamma.size() != channels || beta.size() != channels || mean.size() != channels ||
      var.size() != channels) {
    return absl::InternalError(absl::StrCat(DescribeNode(norm), "'s parameters do not have ",
                                            channels, " channels"));
  }
  ConcatNormPlan plan;
  plan.layout = NormLayout(*layout);
  plan.batch = out_dims[0];
  plan.pixels = out_dims[2] * out_dims[3];
  for (const MemRef& s : sources) plan.channels.push_back(s.md.dims()[1]);
  plan.relu = g.eltwise.has_value();
  for (size_t c = 0; c < channels; ++c) {
    const double scale = gamma[c] / std::sqrt(static_cast<double>(var[c]) + na.epsilon);
    plan.scale.push_back(static_cast<float>(scale));
    plan.shift.push_back(static_cast<float>(beta[c] - mean[c] * scale));
  }
  const MemRef dst = b.NewBuffer(memory::desc(out_dims, kF32, *layout));
  std::vector<std::pair<int, MemRef>> args;
  for (size_t i = 0; i < sources.size(); ++i) {
    args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), sources[i]});
  }
  args.push_back({DNNL_ARG_DST, dst});
  const int threads = b.threads();
  const int k = static_cast<int>(sources.size());
  b.AddHostStep(
      [plan = std::move(plan), threads, k](
          const std::unordered_map<int, memory>& bound) {
        std::vector<const float*> from(k);
        for (int i = 0; i < k; ++i) {
          from[i] = static_cast<const float*>(
              bound.at(DNNL_ARG_MULTIPLE_SRC + i).get_data_handle());
        }
        ConcatNorm(plan, from,
                   static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), threads);
      },
      std::move(args), absl::StrCat(node.name, ": host concat+batch_norm"));
  b.Define(out, dst);
  return true;
}

}  // namespace

absl::Status LowerConcat(PartitionBuilder& b, const FusionGroup& g,
                         const Node& node, ValueId out) {
  if (g.concat_norm) {
    SY_ASSIGN_OR_RETURN(const bool done, LowerConcatNormOnHost(b, g, node, out));
    if (done) return absl::OkStatus();
    // The concat, then the norm (and relu) as their own primitives.
    SY_RETURN_IF_ERROR(LowerConcat(b, FusionGroup(), node, node.outputs[0]));
    FusionGroup norm = g;
    norm.first = g.first + 1;
    norm.count = g.count - 1;
    norm.concat_norm = false;
    return LowerBatchNorm(b, norm, b.GroupNode(g, 1), out);
  }
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
  SY_ASSIGN_OR_RETURN(const bool sliced, LowerConcatIntoSlices(b, node, axis, sources, out));
  if (sliced) return absl::OkStatus();
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
