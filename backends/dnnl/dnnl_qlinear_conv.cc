// qlinear_conv on oneDNN: one int8 convolution_forward (uint8 or int8
// source, int8 weights, int32 bias, uint8 or int8 destination) with the
// requantization as primitive attributes: output scales (the multiplier,
// one or one per output channel) and the source's and destination's zero
// points. Source, weights and destination take format_tag::any: oneDNN's
// int8 kernels pick channels-last, so consecutive qlinear_convs pass nhwc
// values on without reorders, and a reorder from NCHW is needed only at the
// partition's edges.
//
// oneDNN computes saturate(round_half_even((acc + bias) * scale + zp)),
// ONNX Runtime saturate(round_half_even(acc_with_bias * scale) + zp): the
// two differ by one step on exact ties only (x.5 before the zero point is
// added), and an int32 sum past 2^24 rounds once more on its way to float.
// oneDNN's int8 convolutions take weights with zero point 0 only (what
// ONNX Runtime's quantizer writes: symmetric int8 weights), and sum exactly
// only with VNNI (dnnl_support.h: CheckExactInt8Products); other nodes
// stay on the CPU backend.

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// qlinear_conv's operands (ops/qlinear_conv.cc).
enum Operand {
  kInput = 0,
  kWeight = 1,
  kBias = 2,
  kInputZeroPoint = 3,
  kWeightZeroPoint = 4,
  kMultiplier = 5,
  kOutputZeroPoint = 6,
};

}  // namespace

absl::Status CheckQLinearConv(const Node& node, const Graph& graph, const NodeShapes& shapes) {
  if (shapes.in[kInput].rank() != 4) return Refuse(node, "input must be NCHW");
  SY_RETURN_IF_ERROR(CheckExactInt8Products(node));
  SY_RETURN_IF_ERROR(CheckConstants(node, graph, kWeight));
  const Value& w = graph.value(node.inputs[kWeight]);
  if (w.dtype != DType::kInt8) {
    return Refuse(node, absl::StrCat("its weight is ", DTypeName(w.dtype),
                                     "; oneDNN's int8 convolutions take int8 weights"));
  }
  absl::StatusOr<std::vector<float>> w_zp =
      graph.value(node.inputs[kWeightZeroPoint]).constant->ToVector();
  if (!w_zp.ok()) return Refuse(node, std::string(w_zp.status().message()));
  for (float zp : *w_zp) {
    if (zp != 0) {
      return Refuse(node,
                    "its weight zero point is not 0; oneDNN's int8 convolutions take "
                    "symmetric weights only");
    }
  }
  return absl::OkStatus();
}

absl::Status LowerQLinearConv(PartitionBuilder& b, const FusionGroup& g, const Node& node,
                              ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(Conv2dAttrs a, Conv2dAttrs::FromAttrMap(node.attrs));
  const Value& x = graph.value(node.inputs[kInput]);
  const Value& y = graph.value(node.outputs[0]);
  const Dims src = ToDims(*x.shape);
  const Dims dst = ToDims(*y.shape);
  const Dims w = ToDims(*graph.value(node.inputs[kWeight]).shape);
  Dims wdims = w;
  memory::desc wplain = Plain(w, memory::data_type::s8);
  if (a.groups > 1) {
    wdims = {a.groups, w[0] / a.groups, w[1], w[2], w[3]};
    wplain = memory::desc(wdims, memory::data_type::s8, Tag::goihw);
  }
  SY_ASSIGN_OR_RETURN(std::vector<float> multiplier,
                      b.ConstantValues(node.inputs[kMultiplier]));
  SY_ASSIGN_OR_RETURN(std::vector<float> x_zp, b.ConstantValues(node.inputs[kInputZeroPoint]));
  SY_ASSIGN_OR_RETURN(std::vector<float> y_zp,
                      b.ConstantValues(node.inputs[kOutputZeroPoint]));
  dnnl::primitive_attr attr = PrimitiveAttr(g);
  // Per channel: the scales run along the destination's dim 1.
  attr.set_output_scales(multiplier.size() > 1 ? 1 << 1 : 0, multiplier);
  if (x_zp[0] != 0) {
    attr.set_zero_points(DNNL_ARG_SRC, 0, {static_cast<int32_t>(x_zp[0])});
  }
  if (y_zp[0] != 0) {
    attr.set_zero_points(DNNL_ARG_DST, 0, {static_cast<int32_t>(y_zp[0])});
  }
  const memory::desc bias_md({w[0]}, memory::data_type::s32, Tag::a);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(src, DnnlType(x.dtype), Tag::any),
      memory::desc(wdims, memory::data_type::s8, Tag::any), bias_md,
      memory::desc(dst, DnnlType(y.dtype), Tag::any), {a.stride_h, a.stride_w},
      {a.dilation_h - 1, a.dilation_w - 1}, {a.pad_h, a.pad_w}, {a.pad_h, a.pad_w});
  const dnnl::convolution_forward::primitive_desc pd(desc, attr, b.engine());
  SY_ASSIGN_OR_RETURN(const MemRef s, b.As(node.inputs[kInput], pd.src_desc()));
  SY_ASSIGN_OR_RETURN(const MemRef wm, b.Owned(node.inputs[kWeight], wplain, pd.weights_desc()));
  SY_ASSIGN_OR_RETURN(const MemRef bias, b.Owned(node.inputs[kBias], bias_md, bias_md));
  const MemRef d = b.NewBuffer(pd.dst_desc());
  b.AddStep(dnnl::convolution_forward(pd),
            {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
  b.Define(out, d);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
