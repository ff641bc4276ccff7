#ifndef SWITCHYARD_CORE_BUFFER_PLAN_H_
#define SWITCHYARD_CORE_BUFFER_PLAN_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/partition.h"

namespace switchyard {

// Which reusable buffer ("slot") holds each intermediate value. Two values
// share a slot when their lifetimes (from the producing node to the last
// node that reads it) do not overlap and they live on the same device. Graph
// inputs, constants and graph outputs get no slot: inputs and constants are
// the caller's tensors, and outputs are fresh per run so callers may keep them.
//
//   BufferPlan plan = *PlanBuffers(graph);  // after shape inference and placement
//   plan.value_slot[v] == -1 or an index into plan.slots
struct BufferPlan {
  struct Slot {
    Device device;
    size_t bytes;
  };
  std::vector<Slot> slots;
  std::vector<int> value_slot;  // by ValueId
  // By ValueId: the value whose bytes it shares (a copy between devices of
  // host memory, core/shared_memory.h), or -1. A shared value gets no slot
  // of its own, and the slot it shares lives until its last reader.
  std::vector<ValueId> shared_source;
  size_t planned_bytes = 0;     // sum of slot sizes
  size_t unplanned_bytes = 0;   // what one buffer per value would take
};

absl::StatusOr<BufferPlan> PlanBuffers(const Graph& graph);

// The same for a plan whose kernels each run several nodes (partitions): one
// entry per kernel launch, in run order, with the values it reads and
// writes. Values no step writes (made inside a partition) get no slot.
struct PlannedStep {
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
};
// `shared_source` (by ValueId, or empty): as BufferPlan::shared_source.
absl::StatusOr<BufferPlan> PlanBuffers(const Graph& graph,
                                       const std::vector<PlannedStep>& steps,
                                       std::vector<ValueId> shared_source = {});
// The steps of `graph` run with `partitions` (sorted, from ClaimPartitions).
std::vector<PlannedStep> PlannedSteps(const Graph& graph,
                                      const std::vector<Partition>& partitions);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_BUFFER_PLAN_H_
