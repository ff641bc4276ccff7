#include "passes/layer_norm_fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/optimization_pass_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/norm_attrs.h"
#include "ops/op_names.h"
#include "ops/reduce_attrs.h"
#include "passes/pattern_match.h"

namespace switchyard {
namespace {

// How many trailing dims of a rank-`rank` input reduce_mean node `node`
// reduces with keepdims: k when its axes are exactly {rank - k, ...,
// rank - 1} in any order and sign ([] is every axis); nullopt otherwise.
std::optional<int> TrailingAxesWithKeepdims(const Node& node, int rank) {
  absl::StatusOr<ReduceAttrs> attrs = ReduceAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok() || !attrs->keepdims || rank < 1) return std::nullopt;
  if (attrs->axes.empty()) return rank;
  std::vector<int64_t> axes;
  for (int64_t a : attrs->axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    axes.push_back(a < 0 ? a + rank : a);
  }
  std::sort(axes.begin(), axes.end());
  const int k = static_cast<int>(axes.size());
  for (int i = 0; i < k; ++i) {
    if (axes[i] != rank - k + i) return std::nullopt;
  }
  return k;
}

bool HasShape(const Graph& graph, ValueId id, const Shape& shape) {
  const Value& v = graph.value(id);
  return v.shape.has_value() && *v.shape == shape;
}

// `shape` without its leading 1s ([1, 1, 96] -> [96]), down to `rank`
// dims at least.
Shape DropLeadingOnes(const Shape& shape, int rank) {
  std::vector<int64_t> dims = shape.dims();
  while (static_cast<int>(dims.size()) > rank && dims.front() == 1) {
    dims.erase(dims.begin());
  }
  return Shape(dims);
}

// A gamma or beta operand: a float32 constant on `device` whose shape is
// `normalized` (x[axis:]), or is after dropping leading 1s.
bool IsAffineConstant(const Graph& graph, ValueId id, const Shape& normalized,
                      const Device& device) {
  const Value& v = graph.value(id);
  return v.constant.has_value() && v.constant->defined() &&
         v.dtype == DType::kFloat32 && v.constant->device() == device &&
         DropLeadingOnes(v.constant->shape(), normalized.rank()) == normalized;
}

// A constant equal to `id`'s with shape `normalized` (the same one when it
// already has that shape), on its device.
absl::StatusOr<ValueId> AsNormalizedShape(Graph& graph, ValueId id,
                                          const Shape& normalized) {
  const Value& v = graph.value(id);
  if (v.constant->shape() == normalized) return id;
  SY_ASSIGN_OR_RETURN(const std::vector<char> bytes, v.constant->ToBytes());
  SY_ASSIGN_OR_RETURN(Tensor reshaped,
                      Tensor::FromBytes(normalized, v.dtype, bytes.data(),
                                        bytes.size(), v.constant->backend_device()));
  const std::string name = absl::StrCat(v.name, "/", normalized.ToString());
  return graph.AddConstant(name, reshaped);
}

// A float32 constant of ones of shape `normalized` on `owner`: layer_norm
// takes a scale, the pattern without a mul has none.
absl::StatusOr<ValueId> Ones(Graph& graph, const std::string& name,
                             const Shape& normalized, BackendDevice& owner) {
  const std::vector<float> ones(static_cast<size_t>(normalized.num_elements()),
                                1.0f);
  SY_ASSIGN_OR_RETURN(
      Tensor tensor,
      Tensor::FromBytes(normalized, DType::kFloat32, ones.data(),
                        ones.size() * sizeof(float), owner));
  return graph.AddConstant(name, tensor);
}

// What a match found: the nodes to replace, the last of them, and the
// fused node's operands and attributes.
struct LayerNormMatch {
  std::vector<NodeId> nodes;
  NodeId last = -1;
  ValueId x = -1;
  ValueId gamma = -1;  // -1: none, a ones scale is made
  ValueId beta = -1;   // -1: none
  ValueId eps_constant = -1;
  int axis = 0;
  Shape normalized;
  double epsilon = 0;
};

// The pattern starting at reduce_mean node `mean_id`, or nullopt.
absl::StatusOr<std::optional<LayerNormMatch>> Match(const Graph& graph,
                                                    NodeId mean_id) {
  const std::optional<LayerNormMatch> none;
  const ValueReaders readers(graph);
  const Node& mean = graph.node(mean_id);
  if (mean.inputs.size() != 1 || mean.outputs.size() != 1) return none;
  LayerNormMatch m;
  m.x = mean.inputs[0];
  const Value& x = graph.value(m.x);
  if (!x.shape.has_value() || x.dtype != DType::kFloat32) return none;
  const Shape x_shape = *x.shape;
  const int rank = x_shape.rank();
  const std::optional<int> k = TrailingAxesWithKeepdims(mean, rank);
  if (!k.has_value()) return none;
  m.axis = rank - *k;
  m.normalized = Shape(std::vector<int64_t>(x_shape.dims().begin() + m.axis,
                                            x_shape.dims().end()));
  const ValueId mean_out = mean.outputs[0];

  // d = sub(x, mean)
  const std::optional<NodeId> sub_id = readers.SoleReader(mean_out);
  if (!sub_id) return none;
  const Node& sub = graph.node(*sub_id);
  if (sub.op != op_names::kSub || sub.outputs.size() != 1 ||
      sub.inputs != std::vector<ValueId>{m.x, mean_out}) {
    return none;
  }
  const ValueId d = sub.outputs[0];
  if (!HasShape(graph, d, x_shape)) return none;

  // d is read by pow and by div, nothing else.
  if (readers.IsGraphOutput(d) || readers.Readers(d).size() != 2) return none;
  std::optional<NodeId> pow_id, div_id;
  for (NodeId r : readers.Readers(d)) {
    const std::string& op = graph.node(r).op;
    if (op == op_names::kPow && !pow_id) pow_id = r;
    if (op == op_names::kDiv && !div_id) div_id = r;
  }
  if (!pow_id || !div_id) return none;

  // var = reduce_mean(pow(d, 2))
  const Node& pow = graph.node(*pow_id);
  if (pow.inputs.size() != 2 || pow.outputs.size() != 1 || pow.inputs[0] != d ||
      !HasShape(graph, pow.outputs[0], x_shape)) {
    return none;
  }
  SY_ASSIGN_OR_RETURN(const std::optional<double> exponent,
                      OneElementFloatConstant(graph, pow.inputs[1]));
  if (!exponent || *exponent != 2.0) return none;
  const Device device = graph.value(pow.inputs[1]).constant->device();
  const std::optional<NodeId> var_id = readers.SoleReader(pow.outputs[0]);
  if (!var_id) return none;
  const Node& var = graph.node(*var_id);
  if (var.op != op_names::kReduceMean || var.inputs.size() != 1 ||
      var.outputs.size() != 1 ||
      TrailingAxesWithKeepdims(var, rank) != k) {
    return none;
  }
  const ValueId var_out = var.outputs[0];
  const Value& var_value = graph.value(var_out);
  if (!var_value.shape.has_value()) return none;

  // sqrt(add(var, eps))
  const std::optional<NodeId> add_id = readers.SoleReader(var_out);
  if (!add_id) return none;
  const Node& add_eps = graph.node(*add_id);
  const std::optional<ValueId> eps = OtherOperand(add_eps, var_out);
  if (add_eps.op != op_names::kAdd || add_eps.outputs.size() != 1 || !eps ||
      *eps == var_out || !HasShape(graph, add_eps.outputs[0], *var_value.shape)) {
    return none;
  }
  SY_ASSIGN_OR_RETURN(const std::optional<double> epsilon,
                      OneElementFloatConstant(graph, *eps));
  if (!epsilon || !(*epsilon >= 0) || !std::isfinite(*epsilon) ||
      graph.value(*eps).constant->device() != device) {
    return none;
  }
  m.epsilon = *epsilon;
  m.eps_constant = *eps;
  const std::optional<NodeId> sqrt_id = readers.SoleReader(add_eps.outputs[0]);
  if (!sqrt_id) return none;
  const Node& sqrt = graph.node(*sqrt_id);
  if (sqrt.op != op_names::kSqrt || sqrt.outputs.size() != 1) return none;

  // y = div(d, sqrt(...)): the div that also reads d.
  const std::optional<NodeId> sqrt_reader = readers.SoleReader(sqrt.outputs[0]);
  const Node& div = graph.node(*div_id);
  if (sqrt_reader != div_id || div.outputs.size() != 1 ||
      div.inputs != std::vector<ValueId>{d, sqrt.outputs[0]} ||
      !HasShape(graph, div.outputs[0], x_shape)) {
    return none;
  }
  m.nodes = {mean_id, *sub_id, *pow_id, *var_id, *add_id, *sqrt_id, *div_id};
  m.last = *div_id;

  // Optionally mul(y, gamma), then add(., beta).
  ValueId y = div.outputs[0];
  auto affine_step = [&](const char* op, ValueId& constant) {
    const std::optional<NodeId> reader = readers.SoleReader(y);
    if (!reader) return;
    const Node& node = graph.node(*reader);
    const std::optional<ValueId> other = OtherOperand(node, y);
    if (node.op != op || node.outputs.size() != 1 || !other || *other == y ||
        !IsAffineConstant(graph, *other, m.normalized, device) ||
        !HasShape(graph, node.outputs[0], x_shape)) {
      return;
    }
    constant = *other;
    m.nodes.push_back(*reader);
    m.last = *reader;
    y = node.outputs[0];
  };
  affine_step(op_names::kMul, m.gamma);
  affine_step(op_names::kAdd, m.beta);
  return std::optional<LayerNormMatch>(std::move(m));
}

// Fuses the pattern starting at reduce_mean node `mean_id`, when it is one;
// returns whether it did.
absl::StatusOr<bool> TryFuse(Graph& graph, NodeId mean_id) {
  SY_ASSIGN_OR_RETURN(std::optional<LayerNormMatch> m, Match(graph, mean_id));
  if (!m.has_value()) return false;
  const Node& last = graph.node(m->last);
  const std::string label = last.layer.empty() ? last.name : last.layer;
  ValueId scale;
  if (m->gamma >= 0) {
    SY_ASSIGN_OR_RETURN(scale, AsNormalizedShape(graph, m->gamma, m->normalized));
  } else {
    BackendDevice& owner =
        graph.value(m->eps_constant).constant->backend_device();
    SY_ASSIGN_OR_RETURN(scale, Ones(graph, absl::StrCat(label, ".unit_scale"),
                                    m->normalized, owner));
  }
  std::vector<ValueId> operands = {m->x, scale};
  if (m->beta >= 0) {
    SY_ASSIGN_OR_RETURN(const ValueId bias,
                        AsNormalizedShape(graph, m->beta, m->normalized));
    operands.push_back(bias);
  }
  LayerNormAttrs attrs;
  attrs.axis = m->axis;
  attrs.epsilon = m->epsilon;
  SY_RETURN_IF_ERROR(ReplacePattern(graph, m->nodes, m->last,
                                    op_names::kLayerNorm, std::move(operands),
                                    attrs.ToAttrMap()));
  return true;
}

}  // namespace

// After batch-norm folding; before gelu fusion (the two never share nodes).
SY_REGISTER_OPTIMIZATION_PASS(110, LayerNormFusionPass);

absl::StatusOr<bool> LayerNormFusionPass::Run(Graph& graph) {
  bool changed = false;
  // Fusing removes nodes at and after the first reduce_mean only, so the
  // walk down from the end never skips one.
  for (NodeId id = static_cast<NodeId>(graph.nodes().size()) - 1; id >= 0;
       --id) {
    if (graph.node(id).op != op_names::kReduceMean) continue;
    SY_ASSIGN_OR_RETURN(const bool fused, TryFuse(graph, id));
    changed |= fused;
  }
  return changed;
}

}  // namespace switchyard
