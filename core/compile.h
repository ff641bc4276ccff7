#ifndef SWITCHYARD_CORE_COMPILE_H_
#define SWITCHYARD_CORE_COMPILE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/optimization_pass_registry.h"
#include "core/placement_report.h"

namespace switchyard {

enum class PlacementPolicy {
  // Every operand of a node on one device, or InvalidArgument (the default).
  kStrict,
  // Copies inserted toward a target device; unsupported nodes fall back.
  kAuto,
};

// The name of the batch-norm folding pass (//passes, passes/fold_batch_norm.h),
// which CompileOptions::fold_batch_norm switches.
inline constexpr char kFoldBatchNormPassName[] = "fold-batch-norm";

// "strict" or "auto".
absl::StatusOr<PlacementPolicy> ParsePlacementPolicy(absl::string_view name);

struct CompileOptions {
  BackendRegistry* backends = &BackendRegistry::Global();
  const OpRegistry* ops = &OpRegistry::Global();
  PlacementPolicy placement = PlacementPolicy::kStrict;
  // kAuto: where nodes should run. Unset: the device of the graph's
  // parameters (the model's device), else of its first input.
  std::optional<Device> target;
  // kAuto: where a node the target cannot run goes instead; unset: nowhere.
  std::optional<Device> fallback = Device::Cpu();
  // kAuto: filled with what was copied and what fell back, when set.
  PlacementReport* report = nullptr;
  // The optimisation passes run after shape inference: every one
  // registered here (the binary links them: //passes, which the backends and
  // //models link), minus those switched off below.
  const OptimizationPassRegistry* optimizations =
      &OptimizationPassRegistry::Global();
  // Registered optimisation passes not to run, by name; an unregistered name
  // is InvalidArgument.
  std::vector<std::string> disabled_passes;
  // Fold each inference batch_norm into the conv2d before it when that is
  // exact (kFoldBatchNormPassName, passes/fold_batch_norm.h); false is the
  // same as naming it in disabled_passes.
  bool fold_batch_norm = true;
  // Where the plan's runs borrow memory for intermediate values: give every
  // plan of one model the same pool, so that plans for new input sizes reuse
  // the memory of earlier ones (core/workspace_pool.h). Null: the plan's own.
  std::shared_ptr<WorkspacePool> workspaces;
  // Prints the graph to stderr after this pass ("shape-inference",
  // "fold-batch-norm", "auto-placement", "strict-placement", or "all").
  // Empty: the environment variable SWITCHYARD_DUMP_GRAPH_AFTER, if set.
  std::string dump_after;
};

// The standard pipeline: shape inference, the registered optimisation
// passes (batch-norm folding, unless turned off), placement (strict, or
// auto then a strict check), lowering. Any error happens before a kernel
// runs or a buffer is allocated, except an allocation failure itself
// (folding allocates its new constants).
//
//   absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
//       Compile(std::move(graph));
absl::StatusOr<std::unique_ptr<ExecutablePlan>> Compile(
    Graph graph, const CompileOptions& options = CompileOptions());

// The first two stages only, for tools that print the placed graph.
absl::Status InferAndPlace(Graph& graph,
                           const CompileOptions& options = CompileOptions());

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_COMPILE_H_
