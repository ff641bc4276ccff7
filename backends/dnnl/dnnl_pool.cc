// The pooling ops on oneDNN: max_pool2d and avg_pool2d as pooling_v2_forward
// (ceil_mode through extra right padding), adaptive_avg_pool2d as a pooling
// when every window has the same size, or as nearest resampling when the
// output is a whole multiple of the input.

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

using dnnl::memory;

// Below this many input elements a pooling runs on one thread (at batch 8
// efficientnet_b0's smallest pools, 451k elements, were slower on one).
constexpr int64_t kOneThreadElements = int64_t{1} << 17;

// Right padding that makes oneDNN's floor arithmetic give `out` windows
// (PyTorch's and ONNX's ceil_mode output included), never less than the
// padding asked for.
int64_t PadRight(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                 int64_t dilation, int64_t pad_l, int64_t pad_r) {
  const int64_t need =
      (out - 1) * stride + (kernel - 1) * dilation + 1 - in - pad_l;
  return std::max(pad_r, need);
}

// Windows and padding of a pooling primitive (dilation as oneDNN counts
// it: 0 is dense; pad_r as the op asks, before PadRight).
struct PoolWindow {
  dnnl::algorithm alg;
  Dims kernel, strides, dilation, pad_l, pad_r;
};

absl::Status PoolPrimitive(PartitionBuilder& b, const Node& node,
                           const PoolWindow& p) {
  const Dims in = ToDims(*b.graph().value(node.inputs[0]).shape);
  const Dims out = ToDims(*b.graph().value(node.outputs[0]).shape);
  Dims pad_r(2);
  for (int i = 0; i < 2; ++i) {
    pad_r[i] = PadRight(in[2 + i], out[2 + i], p.kernel[i], p.strides[i],
                        p.dilation[i] + 1, p.pad_l[i], p.pad_r[i]);
  }
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  // Too little work to share among threads: made and run on one
  // (efficientnet_b0's pools at batch 1: 0.36 -> 0.30 ms a forward).
  std::optional<PartitionBuilder::OneThread> one_thread;
  if (Product(in) < kOneThreadElements) one_thread.emplace(b);
  b.AddSourcePrimitive<dnnl::pooling_v2_forward>(
      dnnl::pooling_v2_forward::desc(
          dnnl::prop_kind::forward_inference, p.alg, s.md,
          memory::desc(out, kF32, Tag::any), p.strides, p.kernel, p.dilation,
          p.pad_l, pad_r),
      node, s);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPool2d(const Node& node, const Graph&,
                         const NodeShapes& shapes) {
  if (shapes.in[0].rank() != 4 || shapes.out.rank() != 4) {
    return Refuse(node, "input must be NCHW");
  }
  return absl::OkStatus();
}

absl::Status CheckAvgPool2d(const Node& node, const Graph& graph,
                            const NodeShapes& shapes) {
  SY_RETURN_IF_ERROR(CheckPool2d(node, graph, shapes));
  absl::StatusOr<AvgPool2dAttrs> a = AvgPool2dAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  if (a->count_include_pad && a->ceil_mode) {
    // ONNX divides by the window clipped to the padded input; oneDNN's
    // include-padding average counts the ceil_mode overhang as well.
    const Shape& in = shapes.in[0];
    const Shape& out = shapes.out;
    const int64_t reach_h = (out.dim(2) - 1) * a->stride_h + a->kernel_h;
    const int64_t reach_w = (out.dim(3) - 1) * a->stride_w + a->kernel_w;
    if (reach_h > in.dim(2) + a->pad_top + a->pad_bottom ||
        reach_w > in.dim(3) + a->pad_left + a->pad_right) {
      return Refuse(node,
                    "count_include_pad with a ceil_mode window that "
                    "overhangs the padding: oneDNN would count the overhang "
                    "in the divisor, ONNX does not");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAdaptiveAvgPool2d(const Node& node, const Graph& graph,
                                    const NodeShapes& shapes) {
  SY_RETURN_IF_ERROR(CheckPool2d(node, graph, shapes));
  const Shape& in = shapes.in[0];
  const Shape& out = shapes.out;
  // A primitive needs windows of one size: input divisible by output (avg
  // pooling, kernel = stride = in/out) or output divisible by input (each
  // window one element: nearest resampling).
  const bool pool = in.dim(2) % out.dim(2) == 0 && in.dim(3) % out.dim(3) == 0;
  const bool upsample =
      out.dim(2) % in.dim(2) == 0 && out.dim(3) % in.dim(3) == 0;
  if (!pool && !upsample) {
    return Refuse(node, absl::StrCat(
        "output ", out.dim(2), "x", out.dim(3), " from ", in.dim(2), "x",
        in.dim(3), " is neither an even division nor a whole-number "
        "upsampling in both dimensions; oneDNN has no primitive for "
        "adaptive windows of different sizes"));
  }
  return absl::OkStatus();
}

absl::Status LowerMaxPool2d(PartitionBuilder& b, const FusionGroup&,
                            const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(MaxPool2dAttrs a, MaxPool2dAttrs::FromAttrMap(node.attrs));
  return PoolPrimitive(b, node,
                       {dnnl::algorithm::pooling_max,
                        {a.kernel_h, a.kernel_w},
                        {a.stride_h, a.stride_w},
                        {a.dilation_h - 1, a.dilation_w - 1},
                        {a.pad_h, a.pad_w},
                        {a.pad_h, a.pad_w}});
}

absl::Status LowerAvgPool2d(PartitionBuilder& b, const FusionGroup&,
                            const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(AvgPool2dAttrs a, AvgPool2dAttrs::FromAttrMap(node.attrs));
  return PoolPrimitive(
      b, node,
      {a.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                           : dnnl::algorithm::pooling_avg_exclude_padding,
       {a.kernel_h, a.kernel_w},
       {a.stride_h, a.stride_w},
       {0, 0},
       {a.pad_top, a.pad_left},
       {a.pad_bottom, a.pad_right}});
}

absl::Status LowerAdaptiveAvgPool2d(PartitionBuilder& b, const FusionGroup&,
                                    const Node& node, ValueId) {
  const Dims in = ToDims(*b.graph().value(node.inputs[0]).shape);
  const Dims out = ToDims(*b.graph().value(node.outputs[0]).shape);
  if (in == out) {
    // Every window is its own element (VGG's 7x7 from 7x7): no work.
    return b.Alias(node.outputs[0], node.inputs[0]);
  }
  if (in[2] % out[2] == 0 && in[3] % out[3] == 0) {
    const Dims k = {in[2] / out[2], in[3] / out[3]};
    return PoolPrimitive(b, node,
                         {dnnl::algorithm::pooling_avg_exclude_padding, k, k,
                          {0, 0}, {0, 0}, {0, 0}});
  }
  // Output a whole multiple of the input: every window is one element,
  // which nearest resampling picks (oneDNN rounds (o + 0.5) * in / out -
  // 0.5, which lands on floor(o * in / out) for these ratios).
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  b.AddSourcePrimitive<dnnl::resampling_forward>(
      dnnl::resampling_forward::desc(dnnl::prop_kind::forward_inference,
                                     dnnl::algorithm::resampling_nearest, s.md,
                                     memory::desc(out, kF32, Tag::any)),
      node, s);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
