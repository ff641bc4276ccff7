#include "onnx/topological_sort.h"

#include <functional>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/graph_conversion.h"

namespace switchyard {
namespace onnx_import {
namespace {

std::string NodeName(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? absl::StrCat(node.op_type(), " #", index)
                             : absl::StrCat("'", node.name(), "'");
}

// The graph's nodes, each after the producers of what it reads, the
// earliest ready node first (Kahn's algorithm over original positions).
absl::StatusOr<std::vector<int>> SortedOrder(const onnx::GraphProto& graph) {
  const int n = graph.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const std::string& out : graph.node(i).output()) {
      if (out.empty()) continue;
      auto [it, first] = producer.emplace(out, i);
      if (!first) {
        return absl::InvalidArgumentError(absl::StrCat(
            "value '", out, "' is produced by two nodes, ",
            NodeName(graph.node(it->second), it->second), " and ",
            NodeName(graph.node(i), i), "; each value of an ONNX graph has one producer"));
      }
    }
  }
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> readers(n);
  bool sorted = true;
  for (int i = 0; i < n; ++i) {
    for (const std::string& name : NodeReads(graph.node(i))) {
      auto it = producer.find(name);
      // Names nothing here produces come from around (inputs,
      // initializers, an outer graph) or are missing, which conversion
      // reports with the node.
      if (it == producer.end() || it->second == i) continue;
      ++waiting[i];
      readers[it->second].push_back(i);
      sorted = sorted && it->second < i;
    }
  }
  std::vector<int> order;
  if (sorted) {
    for (int i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int r : readers[i]) {
      if (--waiting[r] == 0) ready.push(r);
    }
  }
  if (static_cast<int>(order.size()) < n) {
    std::vector<std::string> stuck;
    for (int i = 0; i < n && stuck.size() < 10; ++i) {
      if (waiting[i] > 0) stuck.push_back(NodeName(graph.node(i), i));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph has a cycle: ", n - static_cast<int>(order.size()),
        " nodes are in it or wait on it (", absl::StrJoin(stuck, ", "),
        n - static_cast<int>(order.size()) > 10 ? ", ..." : "",
        "); an ONNX graph must be acyclic"));
  }
  return order;
}

}  // namespace

absl::Status SortNodes(onnx::GraphProto& graph) {
  SY_ASSIGN_OR_RETURN(std::vector<int> order, SortedOrder(graph));
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) SY_RETURN_IF_ERROR(SortNodes(*a.mutable_g()));
      for (onnx::GraphProto& g : *a.mutable_graphs()) SY_RETURN_IF_ERROR(SortNodes(g));
    }
  }
  bool moved = false;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) moved = moved || order[i] != i;
  if (!moved) return absl::OkStatus();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(graph.mutable_node());
  for (int i : order) graph.add_node()->Swap(&nodes[i]);
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace switchyard
