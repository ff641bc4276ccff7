#ifndef SWITCHYARD_CORE_PARTITION_H_
#define SWITCHYARD_CORE_PARTITION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "absl/status/status.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/graph.h"

namespace switchyard {

// What core computes about a Partition (core/backend.h) a backend claimed.
//
//   Partition p{{3, 4}, "conv2d+relu"};  // features.0/conv2d, features.1/relu
//   PartitionInputs(graph, p)  == {input, features.0.weight, features.0.bias}
//   PartitionOutputs(graph, p) == {features.1/relu:0}

// The group's operands made outside it, in first-use order, without repeats.
std::vector<ValueId> PartitionInputs(const Graph& graph,
                                     const Partition& partition);
// The values the group makes that the rest of the graph reads or returns,
// and the last node's outputs (even when nothing reads them), in node order.
std::vector<ValueId> PartitionOutputs(const Graph& graph,
                                      const Partition& partition);

// Internal when a claim breaks the rules (empty, not consecutive, a node
// placed elsewhere than `device`, a node already in another partition:
// `taken`, by NodeId, which this marks).
absl::Status ValidatePartition(const Graph& graph, const Partition& partition,
                               const Device& device, std::vector<bool>& taken);

// Asks each device that runs nodes of the placed `graph` which partitions
// it claims, validates them, and returns them in graph order. Lowering
// calls it; tools that show a placed graph (`switchyard graph`) too.
absl::StatusOr<std::vector<Partition>> ClaimPartitions(
    const Graph& graph, BackendRegistry& registry);

// "features.0/conv2d + features.1/relu -> conv2d+relu on cpu:0", one line
// per partition.
std::string PartitionsToString(const Graph& graph,
                               const std::vector<Partition>& partitions);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PARTITION_H_
