#include "core/partition.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/copy_op.h"

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
  // The last node's outputs are the group's result even when nothing reads
  // them (dead code), so every group has outputs to write.
  for (ValueId id : graph.node(partition.nodes.back()).outputs) {
    read_outside[id] = true;
  }
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
  for (NodeId n : partition.nodes) taken[n] = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Partition>> ClaimPartitions(
    const Graph& graph, BackendRegistry& registry) {
  std::vector<bool> taken(graph.nodes().size(), false);
  std::vector<Partition> claimed;
  std::vector<Device> asked;
  for (const Node& node : graph.nodes()) {
    if (!node.device.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat(
          DescribeNode(node), " is not placed; run placement first"));
    }
    if (std::find(asked.begin(), asked.end(), *node.device) != asked.end()) {
      continue;
    }
    asked.push_back(*node.device);
    absl::StatusOr<BackendDevice*> device = registry.GetDevice(*node.device);
    if (!device.ok()) return device.status();
    for (Partition& p : (*device)->ClaimPartitions(graph)) {
      absl::Status valid = ValidatePartition(graph, p, *node.device, taken);
      if (!valid.ok()) return valid;
      for (NodeId id : p.nodes) {
        if (graph.node(id).op == kCopyOp) {
          return absl::InternalError(absl::StrCat(
              "partition '", p.name, "' claimed by ", node.device->ToString(),
              " includes a copy node; copies are core's"));
        }
      }
      claimed.push_back(std::move(p));
    }
  }
  std::sort(claimed.begin(), claimed.end(),
            [](const Partition& a, const Partition& b) {
              return a.nodes.front() < b.nodes.front();
            });
  return claimed;
}

std::string PartitionsToString(const Graph& graph,
                               const std::vector<Partition>& partitions) {
  std::string out;
  for (const Partition& p : partitions) {
    std::vector<std::string> names;
    for (NodeId id : p.nodes) names.push_back(graph.node(id).name);
    absl::StrAppend(&out, absl::StrJoin(names, " + "), " -> ", p.name, " on ",
                    graph.node(p.nodes.front()).device->ToString(), "\n");
  }
  return out;
}

}  // namespace switchyard
