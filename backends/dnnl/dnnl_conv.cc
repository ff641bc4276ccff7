// conv2d on oneDNN: convolution_forward with format_tag::any for source,
// weights and destination (oneDNN picks: channels-last for its brgemm
// kernels on AVX-512, nChw8c on AVX2), taking a following residual add (sum
// post-op) and an eltwise post-op (relu, clip, sigmoid, SiLU, ...:
// dnnl_fusion.h). Direct or Winograd per dnnl.conv_algorithm
// (dnnl_conv_algorithm.h). SiLU runs as oneDNN's post-op or as a host pass
// after the convolution, per dnnl.silu (dnnl_silu.h).

#include <optional>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_conv_algorithm.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_silu.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

// Below this many multiply-adds a conv2d runs on one thread: EfficientNet's
// squeeze convs at batch 1 (55k) took 12 us on 2 threads and 8 on 1 (AMD
// EPYC); at batch 8 (442k) two threads are as fast.
constexpr int64_t kOneThreadMacs = int64_t{1} << 17;

absl::Status CheckConv2d(const Node& node, const Graph& graph,
                         const NodeShapes& shapes) {
  if (shapes.in[0].rank() != 4) return Refuse(node, "input must be NCHW");
  return CheckConstants(node, graph, 1);
}

absl::StatusOr<MemRef> ConvDestination(PartitionBuilder& b, const FusionGroup& g,
                                       int add_index, const Node& conv, const MemRef& src,
                                       const memory::desc& md) {
  if (!g.sum) return b.NewBuffer(md);
  // The residual becomes the destination's initial contents: its own
  // buffer when nothing reads it afterwards and the layout matches, else a
  // copy in the destination's layout.
  const Node& add = b.GroupNode(g, add_index);
  const ValueId residual = add.inputs[0] == conv.outputs[0] ? add.inputs[1] : add.inputs[0];
  SY_ASSIGN_OR_RETURN(MemRef r, b.Natural(residual));
  const bool is_source = r.kind == src.kind && r.index == src.index;
  if (r.md == md && !is_source && b.IsOwnBuffer(residual, r) &&
      b.Reusable(residual, g.first + add_index)) {
    return r;
  }
  const MemRef d = b.NewBuffer(md);
  b.AddReorder(r, d, absl::StrCat("residual: ", b.graph().value(residual).name));
  return d;
}

absl::Status LowerConv2d(PartitionBuilder& b, const FusionGroup& g,
                         const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(Conv2dAttrs a, Conv2dAttrs::FromAttrMap(node.attrs));
  const Dims src = ToDims(*graph.value(node.inputs[0]).shape);
  const Dims dst = ToDims(*graph.value(node.outputs[0]).shape);
  const Dims w = ToDims(*graph.value(node.inputs[1]).shape);
  Dims wdims = w;
  memory::desc wplain = Plain(w);
  if (a.groups > 1) {
    wdims = {a.groups, w[0] / a.groups, w[1], w[2], w[3]};
    wplain = memory::desc(wdims, kF32, Tag::goihw);
  }
  auto any = [](const Dims& d) { return memory::desc(d, kF32, Tag::any); };
  const Dims strides = {a.stride_h, a.stride_w};
  const Dims dilates = {a.dilation_h - 1, a.dilation_w - 1};
  const Dims pad_l = {a.pad_h, a.pad_w};
  const Dims pad_r = {a.pad_h, a.pad_w};
  // SiLU as a host pass over the output (dnnl_silu.h) instead of the
  // swish post-op.
  const bool host_silu = g.silu && WantsHostSilu(b.silu(), Product(dst));
  FusionGroup conv_group = g;
  if (host_silu) conv_group.eltwise.reset();
  // Too little work to share among threads: the conv is made and run on
  // one (the reorders around it keep the kernel's threads).
  const bool tiny = Product(dst) * (src[1] / a.groups) * w[2] * w[3] < kOneThreadMacs;
  std::optional<PartitionBuilder::OneThread> one_thread;
  if (tiny) one_thread.emplace(b);
  auto make = [&](dnnl::algorithm algorithm) {
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, algorithm, any(src), any(wdims),
        BiasDesc(graph, node), any(dst), strides, dilates, pad_l, pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, PrimitiveAttr(conv_group),
                                                     b.engine());
  };
  std::optional<dnnl::convolution_forward::primitive_desc> winograd;
  if (WantsWinograd(b.conv_algorithm(),
                    WinogradShape(w[2], w[3], a.stride_h, a.stride_w,
                                  a.dilation_h, a.dilation_w, a.groups),
                    src[1], dst[1])) {
    try {
      winograd = make(dnnl::algorithm::convolution_winograd);
    } catch (const dnnl::error&) {
      // No Winograd kernel for this ISA, layout or post-op: direct.
    }
  }
  const dnnl::convolution_forward::primitive_desc pd =
      winograd ? *winograd : make(dnnl::algorithm::convolution_direct);
  one_thread.reset();
  SY_ASSIGN_OR_RETURN(MemRef s, b.As(node.inputs[0], pd.src_desc()));
  SY_ASSIGN_OR_RETURN(MemRef wm,
                      b.Owned(node.inputs[1], wplain, pd.weights_desc()));
  SY_ASSIGN_OR_RETURN(const MemRef d, ConvDestination(b, g, 1, node, s, pd.dst_desc()));
  if (tiny) one_thread.emplace(b);
  SY_RETURN_IF_ERROR(b.AddWeightedStep(dnnl::convolution_forward(pd), node, s, wm, d,
                                       out, pd.scratchpad_desc(), Describe(pd, node)));
  one_thread.reset();
  if (host_silu) {
    const int64_t floats = static_cast<int64_t>(pd.dst_desc().get_size() / sizeof(float));
    const int threads = b.threads();
    b.AddHostStep(
        [floats, threads](const std::unordered_map<int, memory>& bound) {
          SiluInPlace(static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), floats,
                      threads);
        },
        {{DNNL_ARG_DST, d}}, absl::StrCat(node.name, ": host silu"));
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
