#ifndef SWITCHYARD_CORE_COMPILE_H_
#define SWITCHYARD_CORE_COMPILE_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/placement_report.h"

namespace switchyard {

enum class PlacementPolicy {
  // Every operand of a node on one device, or InvalidArgument (the default).
  kStrict,
  // Copies inserted toward a target device; unsupported nodes fall back.
  kAuto,
};

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
  // Fold each inference batch_norm into the conv2d before it when that is
  // exact (core/passes/fold_batch_norm.h).
  bool fold_batch_norm = true;
  // Prints the graph to stderr after this pass ("shape-inference",
  // "fold-batch-norm", "auto-placement", "strict-placement", or "all").
  // Empty: the environment variable SWITCHYARD_DUMP_GRAPH_AFTER, if set.
  std::string dump_after;
};

// The standard pipeline: shape inference, batch-norm folding (unless turned
// off), placement (strict, or auto then a strict check), lowering. Any error
// happens before a kernel runs or a buffer is allocated, except an
// allocation failure itself (folding allocates its new constants).
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
