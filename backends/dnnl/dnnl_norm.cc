// The normalizations on oneDNN: batch_norm as batch_normalization_forward
// with global statistics (scale and shift, fuse_norm_relu for a following
// relu), softmax as softmax_forward on plain data.

#include <string>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

absl::Status CheckBatchNorm(const Node& node, const Graph& graph,
                            const NodeShapes& shapes) {
  if (shapes.in[0].rank() > 5) {
    return Refuse(node, absl::StrCat("oneDNN batch normalization takes 2 to "
                                     "5 dimensions, got ",
                                     shapes.in[0].ToString()));
  }
  return CheckConstants(node, graph, 1);
}

absl::Status LowerBatchNorm(PartitionBuilder& b, const FusionGroup& g,
                            const Node& node, ValueId out) {
  SY_ASSIGN_OR_RETURN(BatchNormAttrs a, BatchNormAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  auto flags = dnnl::normalization_flags::use_global_stats |
               dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  // The only eltwise a batch_norm group takes is a relu (norm_relu_post_op).
  if (g.eltwise.has_value()) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
  dnnl::batch_normalization_forward::desc desc(
      dnnl::prop_kind::forward_inference, s.md, static_cast<float>(a.epsilon),
      flags);
  dnnl::batch_normalization_forward::primitive_desc pd(desc, PrimitiveAttr(),
                                                       b.engine());
  const Dims c = {s.md.dims()[1]};
  const memory::desc vec(c, kF32, Tag::a);
  // Operands: input, weight (scale), bias (shift), running_mean, running_var.
  SY_ASSIGN_OR_RETURN(MemRef scale, b.Owned(node.inputs[1], vec, vec));
  SY_ASSIGN_OR_RETURN(MemRef shift, b.Owned(node.inputs[2], vec, vec));
  SY_ASSIGN_OR_RETURN(MemRef mean, b.Owned(node.inputs[3], vec, vec));
  SY_ASSIGN_OR_RETURN(MemRef var, b.Owned(node.inputs[4], vec, vec));
  MemRef d = b.NewBuffer(pd.dst_desc());
  b.AddStep(dnnl::batch_normalization_forward(pd),
            {{DNNL_ARG_SRC, s}, {DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift},
             {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
  b.Define(out, d);
  return absl::OkStatus();
}

absl::Status LowerSoftmax(PartitionBuilder& b, const FusionGroup&,
                          const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(SoftmaxAttrs a, SoftmaxAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef s, b.PlainOf(node.inputs[0]));
  SY_ASSIGN_OR_RETURN(
      int axis, ops_internal::WrapDim(
                    a.dim, static_cast<int>(s.md.dims().size()), "dim"));
  b.AddSourcePrimitive<dnnl::softmax_forward>(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s.md,
                                  axis),
      node, s);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
