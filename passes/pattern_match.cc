#include "passes/pattern_match.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"

namespace switchyard {

ValueReaders::ValueReaders(const Graph& graph)
    : readers_(graph.values().size()), is_output_(graph.values().size(), false) {
  for (const Node& node : graph.nodes()) {
    for (ValueId v : node.inputs) readers_[v].push_back(node.id);
  }
  for (ValueId v : graph.outputs()) is_output_[v] = true;
}

std::optional<NodeId> ValueReaders::SoleReader(ValueId value) const {
  if (is_output_[value] || readers_[value].size() != 1) return std::nullopt;
  return readers_[value].front();
}

std::optional<NodeId> ProducerWithOp(const Graph& graph, ValueId value,
                                     const char* op) {
  const NodeId producer = graph.value(value).producer;
  if (producer < 0) return std::nullopt;
  const Node& node = graph.node(producer);
  if (node.op != op || node.outputs.size() != 1) return std::nullopt;
  return producer;
}

std::optional<ValueId> OtherOperand(const Node& node, ValueId known) {
  if (node.inputs.size() != 2) return std::nullopt;
  if (node.inputs[0] == known) return node.inputs[1];
  if (node.inputs[1] == known) return node.inputs[0];
  return std::nullopt;
}

absl::StatusOr<std::optional<double>> OneElementFloatConstant(
    const Graph& graph, ValueId value) {
  const Value& v = graph.value(value);
  if (!v.constant.has_value() || !v.constant->defined() ||
      !IsFloatingPoint(v.dtype) || v.constant->num_elements() != 1) {
    return std::optional<double>();
  }
  SY_ASSIGN_OR_RETURN(const std::vector<char> bytes, v.constant->ToBytes());
  return std::optional<double>(ElementAsDouble(bytes.data(), v.dtype, 0));
}

bool CloseTo(double actual, double expected, double relative) {
  return std::fabs(actual - expected) <= relative * std::fabs(expected);
}

namespace {

// The part of `a` and `b` they share up to a '/' ("/x/y" for "/x/y/A" and
// "/x/y/B"; the whole of each when equal).
std::string CommonLayerPrefix(const std::string& a, const std::string& b) {
  if (a == b) return a;
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) {
    ++common;
  }
  // Whole components only: "/x/ab" and "/x/ac" share "/x", not "/x/a".
  const bool a_ends = common == a.size() || a[common] == '/';
  const bool b_ends = common == b.size() || b[common] == '/';
  if (a_ends && b_ends) return a.substr(0, common);
  const size_t slash = a.rfind('/', common == 0 ? 0 : common - 1);
  if (slash == std::string::npos || slash == 0) return "";
  return a.substr(0, slash);
}

}  // namespace

FusedNodeName NameForFusedNode(const Graph& graph,
                               absl::Span<const NodeId> pattern,
                               NodeId last, const std::string& op) {
  const Node& last_node = graph.node(last);
  std::string layer = last_node.layer;
  for (NodeId id : pattern) {
    layer = CommonLayerPrefix(layer, graph.node(id).layer);
  }
  if (layer.empty()) layer = last_node.layer;
  const std::string name =
      layer.empty() ? last_node.name : absl::StrCat(layer, "/", op);
  for (const Node& node : graph.nodes()) {
    if (node.id != last && node.name == name) {
      return {last_node.name, last_node.layer};
    }
  }
  return {name, layer};
}

absl::Status ReplacePattern(Graph& graph, std::vector<NodeId> pattern,
                            NodeId last, const std::string& op,
                            std::vector<ValueId> operands, AttrMap attrs) {
  std::sort(pattern.begin(), pattern.end());
  pattern.erase(std::unique(pattern.begin(), pattern.end()), pattern.end());
  if (operands.empty() || pattern.empty() || pattern.back() != last) {
    return absl::InternalError(absl::StrCat(
        "fusing into ", op, ": node ", last,
        " must be the last node of the pattern and have operands"));
  }
  // Checked before any edit, so a matcher's mistake cannot leave a reader
  // without its value.
  const ValueReaders readers(graph);
  for (NodeId id : pattern) {
    if (id == last) continue;
    for (ValueId out : graph.node(id).outputs) {
      for (NodeId reader : readers.Readers(out)) {
        if (!std::binary_search(pattern.begin(), pattern.end(), reader)) {
          return absl::InternalError(absl::StrCat(
              "fusing into ", op, ": value '", graph.value(out).name,
              "' is read by ", DescribeNode(graph.node(reader)),
              " outside the pattern"));
        }
      }
      if (readers.IsGraphOutput(out)) {
        return absl::InternalError(absl::StrCat(
            "fusing into ", op, ": value '", graph.value(out).name,
            "' is a graph output"));
      }
    }
  }
  for (ValueId operand : operands) {
    const NodeId producer = graph.value(operand).producer;
    if (producer >= last ||
        std::binary_search(pattern.begin(), pattern.end(), producer)) {
      return absl::InternalError(absl::StrCat(
          "fusing into ", op, ": operand '", graph.value(operand).name,
          "' is not made before the pattern"));
    }
  }
  const FusedNodeName fused = NameForFusedNode(graph, pattern, last, op);
  Node& node = graph.mutable_node(last);
  node.op = op;
  node.name = fused.name;
  node.layer = fused.layer;
  node.inputs = std::move(operands);
  node.attrs = std::move(attrs);
  // Walk down: removing a node renumbers only the nodes after it.
  const ValueId unread_replacement = node.inputs.front();
  for (auto it = pattern.rbegin(); it != pattern.rend(); ++it) {
    if (*it == last) continue;
    const std::vector<ValueId> replacements(graph.node(*it).outputs.size(),
                                            unread_replacement);
    SY_RETURN_IF_ERROR(graph.RemoveNode(*it, replacements));
  }
  return absl::OkStatus();
}

}  // namespace switchyard
