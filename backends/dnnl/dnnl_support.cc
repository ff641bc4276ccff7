#include "backends/dnnl/dnnl_support.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "ops/conv_attrs.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

// oneDNN memory descriptors hold 1 to 12 dimensions; the ops here use at
// most 6, which keeps every reshape and reorder on well-trodden paths.
constexpr int kMaxRank = 6;

absl::Status Refuse(const Node& node, const std::string& why) {
  return absl::UnimplementedError(
      absl::StrCat("the dnnl backend (oneDNN) cannot run ", DescribeNode(node),
                   ": ", why));
}

// The parameters oneDNN takes at primitive creation (weights, biases,
// batch-norm statistics) must be graph constants: they are reordered once,
// when the kernel is made.
absl::Status CheckConstants(const Node& node, const Graph& graph, size_t first) {
  for (size_t i = first; i < node.inputs.size(); ++i) {
    const Value& v = graph.value(node.inputs[i]);
    if (!v.constant.has_value()) {
      return Refuse(node, absl::StrCat(
          "operand ", i, " ('", v.name, "') is computed, not a constant; "
          "oneDNN reorders parameters into its own layout once, when the "
          "kernel is created, so they must be graph constants"));
    }
  }
  return absl::OkStatus();
}

// Adaptive pooling maps onto a primitive when every window has the same
// size: input divisible by output (avg pooling, kernel = stride = in/out)
// or output divisible by input (each window one element: nearest
// resampling).
enum class AdaptiveKind { kPool, kUpsample, kNone };

AdaptiveKind ClassifyAdaptive(int64_t in_h, int64_t in_w, int64_t out_h,
                              int64_t out_w) {
  if (in_h % out_h == 0 && in_w % out_w == 0) return AdaptiveKind::kPool;
  if (out_h % in_h == 0 && out_w % in_w == 0) return AdaptiveKind::kUpsample;
  return AdaptiveKind::kNone;
}

absl::Status CheckOp(const Node& node, const Graph& graph,
                     const std::vector<Shape>& in, const Shape& out) {
  const std::string& op = node.op;
  if (op == "conv2d") {
    if (in[0].rank() != 4) return Refuse(node, "input must be NCHW");
    return CheckConstants(node, graph, 1);
  }
  if (op == "linear") return CheckConstants(node, graph, 1);
  if (op == "batch_norm") {
    if (in[0].rank() > 5) {
      return Refuse(node, absl::StrCat("oneDNN batch normalization takes 2 to "
                                       "5 dimensions, got ",
                                       in[0].ToString()));
    }
    return CheckConstants(node, graph, 1);
  }
  if (op == "add") {
    if (in[0] != in[1]) {
      return Refuse(node, absl::StrCat(
          "operands ", in[0].ToString(), " and ", in[1].ToString(),
          " differ; the oneDNN device adds same-shape tensors only (no "
          "broadcasting)"));
    }
    return absl::OkStatus();
  }
  if (op == "max_pool2d" || op == "avg_pool2d" || op == "adaptive_avg_pool2d") {
    if (in[0].rank() != 4 || out.rank() != 4) {
      return Refuse(node, "input must be NCHW");
    }
  }
  if (op == "avg_pool2d") {
    absl::StatusOr<AvgPool2dAttrs> a = AvgPool2dAttrs::FromAttrMap(node.attrs);
    if (!a.ok()) return Refuse(node, std::string(a.status().message()));
    if (a->count_include_pad && a->ceil_mode) {
      // ONNX divides by the window clipped to the padded input; oneDNN's
      // include-padding average counts the ceil_mode overhang as well.
      const int64_t reach_h = (out.dim(2) - 1) * a->stride_h + a->kernel_h;
      const int64_t reach_w = (out.dim(3) - 1) * a->stride_w + a->kernel_w;
      if (reach_h > in[0].dim(2) + a->pad_top + a->pad_bottom ||
          reach_w > in[0].dim(3) + a->pad_left + a->pad_right) {
        return Refuse(node,
                      "count_include_pad with a ceil_mode window that "
                      "overhangs the padding: oneDNN would count the overhang "
                      "in the divisor, ONNX does not");
      }
    }
    return absl::OkStatus();
  }
  if (op == "adaptive_avg_pool2d") {
    if (ClassifyAdaptive(in[0].dim(2), in[0].dim(3), out.dim(2), out.dim(3)) ==
        AdaptiveKind::kNone) {
      return Refuse(node, absl::StrCat(
          "output ", out.dim(2), "x", out.dim(3), " from ", in[0].dim(2), "x",
          in[0].dim(3), " is neither an even division nor a whole-number "
          "upsampling in both dimensions; oneDNN has no primitive for "
          "adaptive windows of different sizes"));
    }
    return absl::OkStatus();
  }
  return absl::OkStatus();  // relu, max_pool2d, flatten, reshape, dropout, softmax
}

}  // namespace

const std::vector<std::string>& SupportedOps() {
  static const auto* ops = new std::vector<std::string>{
      "adaptive_avg_pool2d", "add",     "avg_pool2d", "batch_norm",
      "conv2d",              "dropout", "flatten",    "linear",
      "max_pool2d",          "relu",    "reshape",    "softmax"};
  return *ops;
}

absl::Status CheckNode(const Node& node, const Graph& graph) {
  const std::vector<std::string>& ops = SupportedOps();
  if (std::find(ops.begin(), ops.end(), node.op) == ops.end()) {
    return absl::UnimplementedError(absl::StrCat(
        "the dnnl backend (oneDNN) has no primitive for op '", node.op,
        "' (node '", node.name, "'); it runs: ", absl::StrJoin(ops, ", ")));
  }
  if (node.outputs.size() != 1) {
    return Refuse(node, "it has more than one output");
  }
  std::vector<Shape> in;
  std::vector<ValueId> operands = node.inputs;
  operands.push_back(node.outputs[0]);
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value& v = graph.value(operands[i]);
    const bool is_output = i + 1 == operands.size();
    const std::string what =
        is_output ? "its output" : absl::StrCat("operand ", i, " ('", v.name, "')");
    if (v.dtype != DType::kFloat32) {
      return Refuse(node, absl::StrCat(what, " is ", DTypeName(v.dtype),
                                       "; the oneDNN device runs float32 only"));
    }
    if (!v.shape.has_value()) {
      return Refuse(node, absl::StrCat(what, " has no shape yet"));
    }
    if (v.shape->rank() < 1 || v.shape->rank() > kMaxRank) {
      return Refuse(node, absl::StrCat(what, " ", v.shape->ToString(),
                                       " has rank ", v.shape->rank(),
                                       "; the oneDNN device takes 1 to ",
                                       kMaxRank));
    }
    if (v.shape->num_elements() == 0) {
      return Refuse(node, absl::StrCat(what, " ", v.shape->ToString(),
                                       " is empty"));
    }
    if (!is_output) in.push_back(*v.shape);
  }
  return CheckOp(node, graph, in, *graph.value(node.outputs[0]).shape);
}

}  // namespace onednn
}  // namespace switchyard
