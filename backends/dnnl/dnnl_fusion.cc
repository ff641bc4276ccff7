#include "backends/dnnl/dnnl_fusion.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_eltwise_algorithm.h"
#include "backends/dnnl/dnnl_op_table.h"
#include "ops/conv_attrs.h"
#include "ops/op_names.h"

namespace switchyard {
namespace onednn {
namespace {

int ReadCount(const Graph& graph, ValueId v) {
  int n = 0;
  for (const Node& node : graph.nodes()) {
    n += static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), v));
  }
  n += static_cast<int>(
      std::count(graph.outputs().begin(), graph.outputs().end(), v));
  return n;
}

int Reads(const Node& node, ValueId v) {
  return static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), v));
}

// Whether node `next` is the one and only reader of `v` (read once): then
// nobody ever sees `v` and the two nodes may become one primitive.
bool OnlyFeeds(const Graph& graph, ValueId v, const Node& next) {
  return Reads(next, v) == 1 && ReadCount(graph, v) == 1;
}

// Whether `sigmoid` and then `mul` compute SiLU of `c`, c * sigmoid(c)
// (either operand order), with nobody else reading the sigmoid: then the
// pair is one swish writing the mul's output.
bool IsSiluOf(const Graph& graph, ValueId c, const Node& sigmoid,
              const Node& mul) {
  if (sigmoid.op != "sigmoid" || mul.op != "mul") return false;
  if (sigmoid.inputs.size() != 1 || sigmoid.inputs[0] != c) return false;
  const ValueId s = sigmoid.outputs[0];
  const bool operands = mul.inputs.size() == 2 && Reads(mul, c) == 1 &&
                        Reads(mul, s) == 1;
  // c keeps its shape through both (no broadcast hides in the mul).
  const bool same_shape =
      *graph.value(mul.outputs[0]).shape == *graph.value(c).shape;
  return operands && same_shape && ReadCount(graph, s) == 1;
}

// Whether `add` adds a constant bias along the last dim of `v` (shape [N]
// or [1, ..., 1, N], N = v's last dim) and keeps v's shape.
bool IsBiasAddOf(const Graph& graph, ValueId v, const Node& add) {
  if (add.op != op_names::kAdd || add.inputs.size() != 2 || Reads(add, v) != 1) {
    return false;
  }
  const ValueId bias = add.inputs[0] == v ? add.inputs[1] : add.inputs[0];
  const Value& b = graph.value(bias);
  const Shape& shape = *graph.value(v).shape;
  if (!b.constant.has_value() || !b.shape || shape.rank() < 1 ||
      b.shape->rank() < 1 || b.shape->rank() > shape.rank() ||
      *graph.value(add.outputs[0]).shape != shape) {
    return false;
  }
  for (int d = 0; d + 1 < b.shape->rank(); ++d) {
    if (b.shape->dim(d) != 1) return false;
  }
  return b.shape->dim(b.shape->rank() - 1) == shape.dim(shape.rank() - 1);
}

// Whether `mul` scales a 4-D x by one factor per image and channel ([N, C,
// 1, 1] or [1, C, 1, 1]) and `conv`, a 1x1 stride-1 conv2d without groups,
// is the only reader of the product.
bool IsScaledConvInput(const Graph& graph, const Node& mul, const Node& conv) {
  if (mul.op != "mul" || mul.inputs.size() != 2 || mul.inputs[0] == mul.inputs[1] ||
      conv.op != op_names::kConv2d || conv.inputs.size() < 2 ||
      conv.inputs[0] != mul.outputs[0] || !OnlyFeeds(graph, mul.outputs[0], conv)) {
    return false;
  }
  const Shape& y = *graph.value(mul.outputs[0]).shape;
  if (y.rank() != 4) return false;
  const Shape& a = *graph.value(mul.inputs[0]).shape;
  const Shape& b = *graph.value(mul.inputs[1]).shape;
  const Shape& s = a == y ? b : a;
  if ((a != y && b != y) || s.rank() != 4 || (s.dim(0) != 1 && s.dim(0) != y.dim(0)) ||
      s.dim(1) != y.dim(1) || s.dim(2) != 1 || s.dim(3) != 1) {
    return false;
  }
  absl::StatusOr<Conv2dAttrs> c = Conv2dAttrs::FromAttrMap(conv.attrs);
  const Shape& w = *graph.value(conv.inputs[1]).shape;
  return c.ok() && c->groups == 1 && c->stride_h == 1 && c->stride_w == 1 &&
         c->pad_h == 0 && c->pad_w == 0 && w.rank() == 4 && w.dim(1) == y.dim(1) &&
         w.dim(2) == 1 && w.dim(3) == 1;
}

// Whether `cast` and `mul` turn matmul_integer's int32 sums `sums` into
// float32 scaled by one factor or one per column ([N] or [1, ..., N]), with
// nobody else reading the cast (a dynamically quantized model's dequantized
// product): oneDNN's output scales do both.
bool IsDequantizationOf(const Graph& graph, ValueId sums, const Node& cast, const Node& mul) {
  if (cast.op != "cast" || cast.inputs.size() != 1 || cast.inputs[0] != sums ||
      graph.value(cast.outputs[0]).dtype != DType::kFloat32 || mul.op != "mul" ||
      mul.inputs.size() != 2 || !OnlyFeeds(graph, sums, cast) ||
      !OnlyFeeds(graph, cast.outputs[0], mul)) {
    return false;
  }
  const Shape& product = *graph.value(sums).shape;
  const ValueId scale = mul.inputs[0] == cast.outputs[0] ? mul.inputs[1] : mul.inputs[0];
  const Value& s = graph.value(scale);
  if (s.dtype != DType::kFloat32 || !s.shape || product.rank() < 1 ||
      *graph.value(mul.outputs[0]).shape != product) {
    return false;
  }
  if (s.shape->num_elements() == 1) return true;
  for (int d = 0; d + 1 < s.shape->rank(); ++d) {
    if (s.shape->dim(d) != 1) return false;
  }
  return s.shape->rank() >= 1 && s.shape->rank() <= product.rank() &&
         s.shape->dim(s.shape->rank() - 1) == product.dim(product.rank() - 1);
}

}  // namespace

ValueId BiasOf(const Node& add, ValueId made) {
  return add.inputs[0] == made ? add.inputs[1] : add.inputs[0];
}

std::vector<NodeId> OrderForFusion(const Graph& graph, std::vector<NodeId> nodes) {
  // How far after the cast its scaling mul is looked for.
  constexpr int kWindow = 4;
  const int n = static_cast<int>(nodes.size());
  for (int p = 0; p + 2 < n; ++p) {
    const Node& head = graph.node(nodes[p]);
    const Node& cast = graph.node(nodes[p + 1]);
    if (head.op != "matmul_integer" || cast.op != "cast" || Reads(cast, head.outputs[0]) != 1) {
      continue;
    }
    auto reads_pair = [&](const Node& node) {
      return Reads(node, head.outputs[0]) > 0 || Reads(node, cast.outputs[0]) > 0;
    };
    int r = p + 2;
    while (r < n && r < p + 2 + kWindow && !reads_pair(graph.node(nodes[r]))) ++r;
    if (r > p + 2 && r < n && Reads(graph.node(nodes[r]), cast.outputs[0]) > 0) {
      std::rotate(nodes.begin() + p, nodes.begin() + p + 2, nodes.begin() + r);
      p += r - (p + 2);  // the moved nodes now sit before the pair
    }
  }
  return nodes;
}

std::vector<FusionGroup> PlanFusionGroups(const Graph& graph,
                                          const std::vector<NodeId>& nodes) {
  std::vector<FusionGroup> groups;
  const int n = static_cast<int>(nodes.size());
  for (int p = 0; p < n;) {
    FusionGroup g;
    g.first = p;
    const Node& head = graph.node(nodes[p]);
    const DnnlOp* row = FindDnnlOp(head.op);
    ValueId made = head.outputs[0];
    int q = p + 1;
    // A squeeze-and-excitation scaling and the 1x1 conv reading it: the
    // conv is the head of what follows.
    if (q < n && IsScaledConvInput(graph, head, graph.node(nodes[q]))) {
      g.scaled_input = true;
      row = FindDnnlOp(op_names::kConv2d);
      made = graph.node(nodes[q]).outputs[0];
      ++q;
    }
    // SiLU of a value made elsewhere: sigmoid(x) and x * sigmoid(x) are one
    // eltwise swish on x (x may have other readers: it stays as it is).
    if (q < n && IsSiluOf(graph, head.inputs.empty() ? -1 : head.inputs[0],
                          head, graph.node(nodes[q]))) {
      g.eltwise = Silu();
      g.silu = true;
      g.count = 2;
      groups.push_back(g);
      p += 2;
      continue;
    }
    // DenseNet's concat -> batch_norm -> relu.
    if (head.op == op_names::kConcat && q < n) {
      const Node& norm = graph.node(nodes[q]);
      if (norm.op == op_names::kBatchNorm && norm.inputs[0] == made &&
          OnlyFeeds(graph, made, norm)) {
        g.concat_norm = true;
        made = norm.outputs[0];
        ++q;
        if (q < n && graph.node(nodes[q]).op == op_names::kRelu &&
            OnlyFeeds(graph, made, graph.node(nodes[q]))) {
          absl::StatusOr<EltwiseAlgorithm> relu = EltwiseAlgorithmOf(graph.node(nodes[q]));
          if (relu.ok()) {
            g.eltwise = *relu;
            ++q;
          }
        }
        g.count = q - p;
        groups.push_back(g);
        p = q;
        continue;
      }
    }
    if (head.op == "matmul_integer" && q + 1 < n &&
        IsDequantizationOf(graph, made, graph.node(nodes[q]), graph.node(nodes[q + 1]))) {
      g.dequantize = true;
      made = graph.node(nodes[q + 1]).outputs[0];
      q += 2;
    }
    // Bias and eltwise post-ops act on float results only.
    const bool float_result = graph.value(made).dtype == DType::kFloat32;
    if (row != nullptr && row->bias_add && float_result && q < n &&
        OnlyFeeds(graph, made, graph.node(nodes[q])) &&
        IsBiasAddOf(graph, made, graph.node(nodes[q]))) {
      g.bias = true;
      made = graph.node(nodes[q]).outputs[0];
      ++q;
    }
    if (row != nullptr && row->sum_post_op && q < n) {
      const Node& next = graph.node(nodes[q]);
      if (next.op == op_names::kAdd && OnlyFeeds(graph, made, next) &&
          *graph.value(next.inputs[0]).shape ==
              *graph.value(next.inputs[1]).shape) {
        g.sum = true;
        made = next.outputs[0];
        ++q;
      }
    }
    // SiLU of the head's output: c is read by its sigmoid and its mul only.
    if (row != nullptr && row->eltwise_post_op && float_result && q + 1 < n &&
        ReadCount(graph, made) == 2 &&
        IsSiluOf(graph, made, graph.node(nodes[q]), graph.node(nodes[q + 1]))) {
      g.eltwise = Silu();
      g.silu = true;
      q += 2;
    } else if (row != nullptr && float_result && q < n) {
      const Node& next = graph.node(nodes[q]);
      if (next.inputs.size() == 1 && OnlyFeeds(graph, made, next)) {
        if (row->eltwise_post_op) {
          // Any unary node oneDNN has an algorithm for (attributes it
          // takes included; crossed clip bounds are not).
          absl::StatusOr<EltwiseAlgorithm> e = EltwiseAlgorithmOf(next);
          if (e.ok()) {
            g.eltwise = *e;
            ++q;
          }
        } else if (row->norm_relu_post_op && next.op == op_names::kRelu) {
          g.eltwise = EltwiseAlgorithm{dnnl::algorithm::eltwise_relu};
          ++q;
        }
      }
    }
    g.count = q - p;
    groups.push_back(g);
    p = q;
  }
  return groups;
}

std::string FusionGroupName(const Graph& graph, const std::vector<NodeId>& nodes,
                            const FusionGroup& g) {
  std::vector<std::string> ops;
  const int named = g.silu ? g.count - 2 : g.count;
  for (int i = 0; i < named; ++i) ops.push_back(graph.node(nodes[g.first + i]).op);
  if (g.silu) ops.push_back("silu");
  return absl::StrJoin(ops, "+");
}

}  // namespace onednn
}  // namespace switchyard
