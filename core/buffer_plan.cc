#include "core/buffer_plan.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

absl::StatusOr<BufferPlan> PlanBuffers(const Graph& graph) {
  std::vector<PlannedStep> steps;
  for (const Node& node : graph.nodes()) {
    steps.push_back({node.inputs, node.outputs});
  }
  return PlanBuffers(graph, steps);
}

std::vector<PlannedStep> PlannedSteps(const Graph& graph,
                                      const std::vector<Partition>& partitions) {
  std::vector<PlannedStep> steps;
  size_t next = 0;
  for (NodeId i = 0; i < static_cast<NodeId>(graph.nodes().size());) {
    if (next < partitions.size() && partitions[next].nodes.front() == i) {
      const Partition& p = partitions[next++];
      steps.push_back({PartitionInputs(graph, p), PartitionOutputs(graph, p)});
      i += static_cast<NodeId>(p.nodes.size());
    } else {
      steps.push_back({graph.node(i).inputs, graph.node(i).outputs});
      ++i;
    }
  }
  return steps;
}

absl::StatusOr<BufferPlan> PlanBuffers(const Graph& graph,
                                       const std::vector<PlannedStep>& steps,
                                       std::vector<ValueId> shared_source) {
  const int num_values = static_cast<int>(graph.values().size());
  if (shared_source.empty()) shared_source.assign(num_values, -1);
  if (static_cast<int>(shared_source.size()) != num_values) {
    return absl::InternalError("shared_source must have one entry per value");
  }
  // A value and the values sharing its bytes are one buffer: its root.
  std::vector<ValueId> root(num_values);
  for (ValueId id = 0; id < num_values; ++id) {
    ValueId r = id;
    for (int hops = 0; shared_source[r] >= 0; ++hops) {
      if (hops >= num_values) return absl::InternalError("values share bytes in a cycle");
      r = shared_source[r];
    }
    root[id] = r;
  }
  // The buffer lives until the last reader of any of its values; one that
  // reaches a graph output is an output (fresh per run, no slot).
  std::vector<bool> is_output(num_values, false);
  for (ValueId id : graph.outputs()) is_output[root[id]] = true;
  std::vector<int> last_use(num_values, -1);
  for (int s = 0; s < static_cast<int>(steps.size()); ++s) {
    for (ValueId id : steps[s].inputs) last_use[root[id]] = s;
  }

  BufferPlan plan;
  plan.value_slot.assign(num_values, -1);
  plan.shared_source = shared_source;
  std::vector<int> free_slots;
  for (int step = 0; step < static_cast<int>(steps.size()); ++step) {
    const PlannedStep& node = steps[step];
    for (ValueId id : node.outputs) {
      const Value& v = graph.value(id);
      if (is_output[id] || shared_source[id] >= 0) continue;
      if (!v.shape || !v.device) {
        return absl::InternalError(absl::StrCat(
            "value '", v.name, "' has no shape or device; run shape "
            "inference and placement before planning buffers"));
      }
      const size_t bytes = v.shape->num_elements() * DTypeSize(v.dtype);
      plan.unplanned_bytes += bytes;
      // Best fit among free slots of this device; else grow the largest
      // free one; else open a new slot.
      int best = -1;
      int largest = -1;
      for (int s : free_slots) {
        const BufferPlan::Slot& slot = plan.slots[s];
        if (slot.device != *v.device) continue;
        if (slot.bytes >= bytes &&
            (best < 0 || slot.bytes < plan.slots[best].bytes)) {
          best = s;
        }
        if (largest < 0 || slot.bytes > plan.slots[largest].bytes) largest = s;
      }
      int chosen = best >= 0 ? best : largest;
      if (chosen < 0) {
        plan.slots.push_back({*v.device, bytes});
        chosen = static_cast<int>(plan.slots.size()) - 1;
      } else {
        plan.slots[chosen].bytes = std::max(plan.slots[chosen].bytes, bytes);
        free_slots.erase(std::find(free_slots.begin(), free_slots.end(), chosen));
      }
      plan.value_slot[id] = chosen;
    }
    // A value nobody reads frees its slot right after its node, but only
    // once every output of the node has its own: TopK's unused values and
    // its indices must not share a slot (the kernel writes both).
    for (ValueId id : node.outputs) {
      if (last_use[id] < 0 && plan.value_slot[id] >= 0) {
        free_slots.push_back(plan.value_slot[id]);
      }
    }
    // Inputs are released only after the outputs took their slots, so a
    // kernel never writes over its own operands.
    for (ValueId input : node.inputs) {
      const ValueId id = root[input];
      if (last_use[id] == step && plan.value_slot[id] >= 0 &&
          std::find(free_slots.begin(), free_slots.end(),
                    plan.value_slot[id]) == free_slots.end()) {
        free_slots.push_back(plan.value_slot[id]);
      }
    }
  }
  for (const BufferPlan::Slot& slot : plan.slots) plan.planned_bytes += slot.bytes;
  return plan;
}

}  // namespace switchyard
