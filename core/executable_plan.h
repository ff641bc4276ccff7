#ifndef SWITCHYARD_CORE_EXECUTABLE_PLAN_H_
#define SWITCHYARD_CORE_EXECUTABLE_PLAN_H_

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/buffer_plan.h"
#include "core/graph.h"
#include "core/partition.h"
#include "core/placement_report.h"
#include "core/run_memory.h"
#include "core/tensor.h"
#include "core/workspace_pool.h"

namespace switchyard {

class Profiler;  // core/profiler.h

// Options of one ExecutablePlan::Run.
struct RunOptions {
  // Times every node on its device's own clock and records the events
  // (core/profiler.h). Null, the default: nothing is timed and the run pays
  // nothing for it.
  Profiler* profiler = nullptr;
  // When set, gets the run's memory on each device with a caching allocator
  // (peak bytes, blocks taken new; core/run_memory.h). A second run of the
  // same shapes, the first run's outputs dropped, takes no new blocks.
  std::vector<DeviceMemoryUse>* memory = nullptr;
};

// A placed graph lowered onto backend kernels, with its intermediate values
// laid out by the buffer plan in one workspace per device, borrowed from a
// WorkspacePool for each run (the plans of one model share a pool, so a new
// input size reuses the memory of the sizes before it). Run it as often as
// you like with inputs of the signature it was compiled for; each run
// returns fresh output tensors. Runs of one plan are serialized.
//
//   absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
//       ExecutablePlan::Lower(std::move(placed_graph), registry);
//   absl::StatusOr<std::vector<Tensor>> outputs = (*plan)->Run({x});
class ExecutablePlan {
 public:
  // Lowering: binds each node to a kernel of the backend that owns its
  // device (after asking the device whether it supports the node) and
  // lays out the planned buffers. The graph must be shape-inferred and
  // placed. `workspaces`: where runs borrow their intermediates (null: a
  // pool of the plan's own).
  static absl::StatusOr<std::unique_ptr<ExecutablePlan>> Lower(
      Graph graph, BackendRegistry& registry,
      std::shared_ptr<WorkspacePool> workspaces = nullptr);

  // Inputs in graph input order, each with the compiled shape, dtype and
  // device; InvalidArgument naming the input otherwise.
  absl::StatusOr<std::vector<Tensor>> Run(
      absl::Span<const Tensor> inputs, const RunOptions& options = RunOptions());

  const Graph& graph() const { return graph_; }
  // The partitions backends claimed (fused groups), in run order.
  const std::vector<Partition>& partitions() const { return partitions_; }
  // One line per fused group: "features.0/conv2d + features.1/relu -> conv2d+relu on cpu:0".
  std::string PartitionsToString() const;
  // One line per kernel that describes itself (Kernel::Describe), in run
  // order: "features.0/conv2d + features.1/relu on cpu:0: winograd4: ...".
  std::string KernelsToString() const;
  const BufferPlan& buffer_plan() const { return buffer_plan_; }
  // What the auto placement policy moved and where nodes fell back; empty
  // under strict placement.
  const PlacementReport& placement_report() const { return placement_report_; }
  void set_placement_report(PlacementReport report) {
    placement_report_ = std::move(report);
  }

 private:
  // One kernel launch: a node, or a partition of several (then `node`
  // points at `group`, a node that names the group for errors and the
  // profiler, and `fused` lists the graph nodes it runs).
  struct Step {
    const Node* node;
    BackendDevice* device;
    std::unique_ptr<Kernel> kernel;  // null when `shares`
    // A copy between devices of host memory: its output is its input's
    // bytes under `device` (core/shared_memory.h), no kernel runs.
    bool shares = false;
    std::vector<ValueId> inputs;
    std::vector<ValueId> outputs;
    std::unique_ptr<Node> group;
    std::vector<NodeId> fused;
  };

  ExecutablePlan(Graph graph, BackendRegistry& registry)
      : graph_(std::move(graph)), registry_(registry) {}

  // Adds the steps of the nodes placed on each device, partitions first.
  absl::Status BindKernels();
  // Fills resident_constants_ (after BindKernels).
  absl::Status PinConstantsReadAtRun();
  // Places each slot of the buffer plan in its device's workspace.
  absl::Status LayOutSlots(std::shared_ptr<WorkspacePool> workspaces);

  Graph graph_;
  BackendRegistry& registry_;
  std::vector<Partition> partitions_;
  BufferPlan buffer_plan_;
  PlacementReport placement_report_;
  std::vector<Step> steps_;
  // The workspace each device's slots live in, and where each slot is.
  struct DeviceWorkspace {
    BackendDevice* device;
    size_t bytes;
  };
  struct SlotPlace {
    int workspace;  // index into workspace_layout_
    size_t offset;
  };
  std::shared_ptr<WorkspacePool> workspaces_;
  std::vector<DeviceWorkspace> workspace_layout_;
  std::vector<SlotPlace> slot_places_;  // by slot
  std::vector<BackendDevice*> devices_used_;

  // Pins of the constants its steps read while running: what this plan
  // needs resident of the weights that may be given back
  // (core/releasable_weights.h).
  std::vector<std::shared_ptr<const void>> resident_constants_;

  absl::Mutex run_mu_;
  // Tensors by ValueId: constants bound at lowering, the rest per run.
  std::vector<Tensor> values_ ABSL_GUARDED_BY(run_mu_);
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_EXECUTABLE_PLAN_H_
