#include "runtime/graph_description.h"

#include <random>
#include <utility>

#include "core/buffer_plan.h"
#include "core/executable_plan.h"
#include "core/partition.h"
#include "core/status_macros.h"
#include "runtime/seeded_input.h"

namespace switchyard {
namespace runtime {

absl::StatusOr<GraphDescription> DescribeGraph(Session& session,
                                               const std::vector<InputSpec>& specs,
                                               PlacementPolicy placement, const Device& device,
                                               uint64_t seed, BackendRegistry& registry,
                                               GraphDetail detail) {
  GraphDescription d;
  absl::StatusOr<Graph> traced = session.module().TraceGraph(specs);
  if (!traced.ok() && session.supports_staged_run()) {
    // Other data may take other branches, sizes or trip counts.
    d.staged = true;
    d.static_error = std::string(traced.status().message());
    std::mt19937_64 rng(seed);
    std::vector<Tensor> inputs;
    for (const InputSpec& spec : specs) {
      const HostArray host = SeededArray(spec.shape, spec.dtype, rng);
      SY_ASSIGN_OR_RETURN(BackendDevice * on, registry.GetDevice(spec.device));
      SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(host.shape, host.dtype,
                                                      host.bytes.data(), host.bytes.size(), *on));
      inputs.push_back(std::move(t));
    }
    SY_ASSIGN_OR_RETURN(d.steps, session.DescribeRun(inputs));
    return d;
  }
  if (!traced.ok()) return traced.status();
  Graph graph = *std::move(traced);
  CompileOptions options;
  options.backends = &registry;
  options.placement = placement;
  options.target = device;
  PlacementReport report;
  options.report = &report;
  SY_RETURN_IF_ERROR(InferAndPlace(graph, options));
  d.text = graph.ToText();
  d.dot = graph.ToDot();
  if (placement == PlacementPolicy::kAuto) d.placement_report = report.ToString();
  if (detail == GraphDetail::kPlacedGraph) return d;
  // What each backend runs as one kernel (fusion), as lowering will.
  SY_ASSIGN_OR_RETURN(std::vector<Partition> partitions, ClaimPartitions(graph, registry));
  d.partition_count = static_cast<int>(partitions.size());
  d.partitions = PartitionsToString(graph, partitions);
  SY_ASSIGN_OR_RETURN(BufferPlan plan, PlanBuffers(graph, PlannedSteps(graph, partitions)));
  d.buffer_slots = static_cast<int>(plan.slots.size());
  d.planned_bytes = static_cast<int64_t>(plan.planned_bytes);
  d.unplanned_bytes = static_cast<int64_t>(plan.unplanned_bytes);
  // What each kernel chose (the cpu's conv2d algorithm): kernels decide at
  // creation, so from a lowered plan.
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> lowered =
      ExecutablePlan::Lower(std::move(graph), registry);
  if (lowered.ok()) {
    d.kernels = (*lowered)->KernelsToString();
  } else {
    d.lowering_error = std::string(lowered.status().message());
  }
  return d;
}

}  // namespace runtime
}  // namespace switchyard
