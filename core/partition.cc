#include "core/partition.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

bool MadeInside(const Graph& graph, const Partition& partition, ValueId id) {
  const NodeId producer = graph.value(id).producer;
  return producer >= 0 && std::find(partition.nodes.begin(),
                                    partition.nodes.end(),
                                    producer) != partition.nodes.end();
}

}  // namespace

std::vector<ValueId> PartitionInputs(const Graph& graph,
                                     const Partition& partition) {
  std::vector<ValueId> inputs;
  for (NodeId n : partition.nodes) {
    for (ValueId id : graph.node(n).inputs) {
      if (MadeInside(graph, partition, id)) continue;
      if (std::find(inputs.begin(), inputs.end(), id) == inputs.end()) {
        inputs.push_back(id);
      }
    }
  }
  return inputs;
}

std::vector<ValueId> PartitionOutputs(const Graph& graph,
                                      const Partition& partition) {
  std::vector<bool> read_outside(graph.values().size(), false);
  for (const Node& node : graph.nodes()) {
    if (std::find(partition.nodes.begin(), partition.nodes.end(), node.id) !=
        partition.nodes.end()) {
      continue;
    }
    for (ValueId id : node.inputs) read_outside[id] = true;
  }
  for (ValueId id : graph.outputs()) read_outside[id] = true;
  std::vector<ValueId> outputs;
  for (NodeId n : partition.nodes) {
    for (ValueId id : graph.node(n).outputs) {
      if (read_outside[id]) outputs.push_back(id);
    }
  }
  return outputs;
}

absl::Status ValidatePartition(const Graph& graph, const Partition& partition,
                               const Device& device, std::vector<bool>& taken) {
  const std::string what =
      absl::StrCat("partition '", partition.name, "' claimed by ",
                   device.ToString());
  if (partition.nodes.empty()) {
    return absl::InternalError(absl::StrCat(what, " has no nodes"));
  }
  for (size_t i = 0; i < partition.nodes.size(); ++i) {
    const NodeId n = partition.nodes[i];
    if (n < 0 || n >= static_cast<NodeId>(graph.nodes().size())) {
      return absl::InternalError(absl::StrCat(what, " names node ", n,
                                              ", which does not exist"));
    }
    if (i > 0 && n != partition.nodes[i - 1] + 1) {
      return absl::InternalError(absl::StrCat(
          what, " is not a run of consecutive nodes"));
    }
    const Node& node = graph.node(n);
    if (node.device != device) {
      return absl::InternalError(absl::StrCat(
          what, " includes ", DescribeNode(node), ", placed on ",
          node.device ? node.device->ToString() : "?"));
    }
    if (taken[n]) {
      return absl::InternalError(absl::StrCat(
          what, " includes ", DescribeNode(node),
          ", which another partition already claimed"));
    }
  }
  if (PartitionOutputs(graph, partition).empty()) {
    return absl::InternalError(
        absl::StrCat(what, " makes nothing the graph reads"));
  }
  for (NodeId n : partition.nodes) taken[n] = true;
  return absl::OkStatus();
}

}  // namespace switchyard
