#include "passes/gelu_fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/dtype.h"
#include "core/optimization_pass_registry.h"
#include "core/status_macros.h"
#include "ops/op_names.h"
#include "passes/pattern_match.h"

namespace switchyard {
namespace {

// The constants of the exported decomposition match these to 1e-6
// relative: the float32 roundings of sqrt(2) and 1 / sqrt(2) are within
// 1e-7 of them; a different constant means a different function.
constexpr double kRelativeTolerance = 1e-6;
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrtHalf = 0.70710678118654752440;

// Whether `id` is a one-element floating-point constant close to `value`.
absl::StatusOr<bool> IsConstantNear(const Graph& graph, ValueId id,
                                    double value) {
  SY_ASSIGN_OR_RETURN(const std::optional<double> c,
                      OneElementFloatConstant(graph, id));
  return c.has_value() && CloseTo(*c, value, kRelativeTolerance);
}

// The operand of binary `node` (op `op`, one output) other than a constant
// close to `value`, either order; nullopt when it is no such node.
absl::StatusOr<std::optional<ValueId>> OperandBesideConstant(
    const Graph& graph, const Node& node, const char* op, double value) {
  if (node.op != op || node.inputs.size() != 2 || node.outputs.size() != 1) {
    return std::optional<ValueId>();
  }
  for (int c : {1, 0}) {
    SY_ASSIGN_OR_RETURN(const bool near,
                        IsConstantNear(graph, node.inputs[c], value));
    if (near) return std::optional<ValueId>(node.inputs[1 - c]);
  }
  return std::optional<ValueId>();
}

struct GeluMatch {
  ValueId x = -1;
  std::vector<NodeId> nodes;
  NodeId last = -1;
};

// The pattern around erf node `erf_id`, or nullopt.
absl::StatusOr<std::optional<GeluMatch>> Match(const Graph& graph,
                                               NodeId erf_id) {
  const std::optional<GeluMatch> none;
  const ValueReaders readers(graph);
  const Node& erf = graph.node(erf_id);
  if (erf.inputs.size() != 1 || erf.outputs.size() != 1) return none;
  const ValueId t = erf.inputs[0];
  if (readers.SoleReader(t) != erf_id) return none;

  // t = div(x, sqrt 2) or mul(x, 1 / sqrt 2).
  GeluMatch m;
  const NodeId scale_id = graph.value(t).producer;
  if (scale_id < 0) return none;
  const Node& scale = graph.node(scale_id);
  if (scale.op == op_names::kDiv && scale.inputs.size() == 2 &&
      scale.outputs.size() == 1) {
    SY_ASSIGN_OR_RETURN(const bool near,
                        IsConstantNear(graph, scale.inputs[1], kSqrt2));
    if (!near) return none;
    m.x = scale.inputs[0];
  } else {
    SY_ASSIGN_OR_RETURN(
        const std::optional<ValueId> x,
        OperandBesideConstant(graph, scale, op_names::kMul, kSqrtHalf));
    if (!x) return none;
    m.x = *x;
  }
  const Value& x = graph.value(m.x);
  if (!x.shape.has_value() || !IsFloatingPoint(x.dtype)) return none;
  const Shape x_shape = *x.shape;
  auto keeps_shape = [&](const Node& node) {
    const Value& out = graph.value(node.outputs[0]);
    return out.shape.has_value() && *out.shape == x_shape &&
           out.dtype == x.dtype;
  };
  if (!keeps_shape(scale) || !keeps_shape(erf)) return none;

  // a = add(erf(t), 1)
  const std::optional<NodeId> add_id = readers.SoleReader(erf.outputs[0]);
  if (!add_id) return none;
  const Node& add = graph.node(*add_id);
  SY_ASSIGN_OR_RETURN(const std::optional<ValueId> erf_operand,
                      OperandBesideConstant(graph, add, op_names::kAdd, 1.0));
  if (erf_operand != erf.outputs[0] || !keeps_shape(add)) return none;
  const ValueId a = add.outputs[0];

  // The mul reading a, then one of three forms.
  const std::optional<NodeId> first_id = readers.SoleReader(a);
  if (!first_id) return none;
  const Node& first = graph.node(*first_id);
  if (first.op != op_names::kMul || first.outputs.size() != 1 ||
      !keeps_shape(first)) {
    return none;
  }
  const std::optional<ValueId> beside_a = OtherOperand(first, a);
  if (!beside_a || *beside_a == a) return none;
  m.nodes = {scale_id, erf_id, *add_id, *first_id};

  if (*beside_a == m.x) {
    // mul(mul(x, a), 0.5)
    const std::optional<NodeId> half_id = readers.SoleReader(first.outputs[0]);
    if (!half_id) return none;
    const Node& half = graph.node(*half_id);
    SY_ASSIGN_OR_RETURN(const std::optional<ValueId> operand,
                        OperandBesideConstant(graph, half, op_names::kMul, 0.5));
    if (operand != first.outputs[0] || !keeps_shape(half)) return none;
    m.nodes.push_back(*half_id);
    m.last = *half_id;
    return std::optional<GeluMatch>(std::move(m));
  }
  SY_ASSIGN_OR_RETURN(const bool a_times_half,
                      IsConstantNear(graph, *beside_a, 0.5));
  if (a_times_half) {
    // mul(x, mul(a, 0.5))
    const std::optional<NodeId> outer_id = readers.SoleReader(first.outputs[0]);
    if (!outer_id) return none;
    const Node& outer = graph.node(*outer_id);
    if (outer.op != op_names::kMul || outer.outputs.size() != 1 ||
        OtherOperand(outer, first.outputs[0]) != m.x || !keeps_shape(outer)) {
      return none;
    }
    m.nodes.push_back(*outer_id);
    m.last = *outer_id;
    return std::optional<GeluMatch>(std::move(m));
  }
  // mul(mul(x, 0.5), a)
  const NodeId half_x_id = graph.value(*beside_a).producer;
  if (half_x_id < 0 || readers.SoleReader(*beside_a) != *first_id) return none;
  const Node& half_x = graph.node(half_x_id);
  SY_ASSIGN_OR_RETURN(
      const std::optional<ValueId> operand,
      OperandBesideConstant(graph, half_x, op_names::kMul, 0.5));
  if (operand != m.x || !keeps_shape(half_x)) return none;
  m.nodes.push_back(half_x_id);
  m.last = *first_id;
  return std::optional<GeluMatch>(std::move(m));
}

}  // namespace

// After layer-norm fusion (the two never share nodes).
SY_REGISTER_OPTIMIZATION_PASS(120, GeluFusionPass);

absl::StatusOr<bool> GeluFusionPass::Run(Graph& graph) {
  bool changed = false;
  // Walking down from the end: a fusion removes nodes below the current
  // one, which moves nodes already looked at down (looked at again, to no
  // effect) and never moves one not yet looked at past the walk.
  for (NodeId id = static_cast<NodeId>(graph.nodes().size()) - 1; id >= 0;
       --id) {
    id = std::min(id, static_cast<NodeId>(graph.nodes().size()) - 1);
    if (id < 0) break;
    if (graph.node(id).op != op_names::kErf) continue;
    SY_ASSIGN_OR_RETURN(std::optional<GeluMatch> m, Match(graph, id));
    if (!m.has_value()) continue;
    SY_RETURN_IF_ERROR(ReplacePattern(graph, m->nodes, m->last, op_names::kGelu,
                                      {m->x}, AttrMap()));
    changed = true;
  }
  return changed;
}

}  // namespace switchyard
