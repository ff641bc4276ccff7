// layer_norm on oneDNN: layer_normalization_forward (inference), which
// normalizes the last dim. The normalized dims axis..rank-1 of the plain
// input are collapsed into that one: the input is viewed as [rows, inner]
// (the same row-major bytes), and scale and bias as [inner]. A missing bias
// leaves out use_shift (a zero shift).

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

absl::Status CheckLayerNorm(const Node& node, const Graph&,
                            const NodeShapes& shapes) {
  absl::StatusOr<LayerNormAttrs> a = LayerNormAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  absl::StatusOr<int> axis = ops_internal::WrapDim(
      a->axis, static_cast<int>(shapes.in[0].rank()), "axis");
  if (!axis.ok()) return Refuse(node, std::string(axis.status().message()));
  if (a->epsilon > std::numeric_limits<float>::max()) {
    return Refuse(node, absl::StrCat("epsilon ", a->epsilon,
                                     " does not fit oneDNN's float epsilon"));
  }
  return absl::OkStatus();
}

absl::Status LowerLayerNorm(PartitionBuilder& b, const FusionGroup&,
                            const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(LayerNormAttrs a,
                      LayerNormAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[0]));
  const Dims dims = src.md.dims();
  SY_ASSIGN_OR_RETURN(
      int axis,
      ops_internal::WrapDim(a.axis, static_cast<int>(dims.size()), "axis"));
  const int64_t inner = Product(dims, axis);
  const Dims rows_by_inner = {Product(dims) / inner, inner};
  src.md = Plain(rows_by_inner);

  const bool has_bias = node.inputs.size() > 2;
  auto flags = dnnl::normalization_flags::use_scale;
  if (has_bias) flags = flags | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc desc(
      dnnl::prop_kind::forward_inference, src.md, static_cast<float>(a.epsilon),
      flags);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, PrimitiveAttr(),
                                                       b.engine());
  // Scale and bias of shape input[axis:], viewed as [inner]: reordered once
  // when constant, else read where they are.
  const memory::desc vec = Plain({inner});
  auto param = [&](ValueId id) -> absl::StatusOr<MemRef> {
    if (graph.value(id).constant.has_value()) return b.Owned(id, vec, vec);
    SY_ASSIGN_OR_RETURN(MemRef ref, b.PlainOf(id));
    ref.md = vec;
    return ref;
  };
  SY_ASSIGN_OR_RETURN(MemRef scale, param(node.inputs[1]));
  std::vector<std::pair<int, MemRef>> args = {{DNNL_ARG_SRC, src},
                                              {DNNL_ARG_SCALE, scale}};
  if (has_bias) {
    SY_ASSIGN_OR_RETURN(MemRef shift, param(node.inputs[2]));
    args.push_back({DNNL_ARG_SHIFT, shift});
  }
  MemRef dst = b.NewBuffer(pd.dst_desc());
  args.push_back({DNNL_ARG_DST, dst});
  b.AddStep(dnnl::layer_normalization_forward(pd), std::move(args),
            pd.scratchpad_desc(), Describe(pd, node));
  dst.md = Plain(dims);  // the same row-major bytes
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
