#include "core/compile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pass.h"
#include "core/passes/auto_placement.h"
#include "core/passes/float32_fallback.h"
#include "core/passes/shape_inference.h"
#include "core/passes/strict_placement.h"
#include "core/status_macros.h"

namespace switchyard {

namespace {

// The auto policy's target when none was given: where the parameters are
// (the model's device), else where the first input is.
std::optional<Device> DefaultTarget(const Graph& graph) {
  for (const Value& v : graph.values()) {
    if (v.constant) return v.device;
  }
  if (!graph.inputs().empty()) return graph.value(graph.inputs()[0]).device;
  return std::nullopt;
}

// The registered optimisation passes `options` leaves on, in order.
absl::StatusOr<std::vector<OptimizationPassRegistry::Entry>> EnabledOptimizations(
    const CompileOptions& options) {
  const OptimizationPassRegistry& registry = *options.optimizations;
  std::vector<std::string> disabled = options.disabled_passes;
  for (const std::string& name : disabled) {
    if (!registry.Contains(name)) {
      std::vector<std::string> names;
      for (const auto& entry : registry.Entries()) names.push_back(entry.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot disable optimisation pass '", name,
          "': it is not registered; the registered ones are: ",
          names.empty() ? "none (link //passes)" : absl::StrJoin(names, ", ")));
    }
  }
  if (!options.fold_batch_norm) disabled.push_back(kFoldBatchNormPassName);
  std::vector<OptimizationPassRegistry::Entry> enabled;
  for (OptimizationPassRegistry::Entry& entry : registry.Entries()) {
    if (std::find(disabled.begin(), disabled.end(), entry.name) ==
        disabled.end()) {
      enabled.push_back(std::move(entry));
    }
  }
  return enabled;
}

}  // namespace

absl::StatusOr<PlacementPolicy> ParsePlacementPolicy(absl::string_view name) {
  if (name == "strict") return PlacementPolicy::kStrict;
  if (name == "auto") return PlacementPolicy::kAuto;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown placement policy '", name, "'; use strict or auto"));
}

absl::Status InferAndPlace(Graph& graph, const CompileOptions& options) {
  PassPipeline pipeline;
  pipeline.Add(std::make_unique<ShapeInferencePass>(*options.ops));
  SY_ASSIGN_OR_RETURN(std::vector<OptimizationPassRegistry::Entry> optimizations,
                      EnabledOptimizations(options));
  for (const OptimizationPassRegistry::Entry& entry : optimizations) {
    pipeline.Add(entry.make());
  }
  if (options.placement == PlacementPolicy::kAuto) {
    std::optional<Device> target = options.target ? options.target : DefaultTarget(graph);
    if (!target) {
      return absl::InvalidArgumentError(
          "auto placement needs a target device and the graph has no inputs "
          "or parameters to take it from");
    }
    // float16/bfloat16 nodes the devices run only in float32 get their
    // casts first; auto placement then places the casts like any node.
    std::vector<Device> candidates = {*target};
    if (options.fallback) candidates.push_back(*options.fallback);
    pipeline.Add(std::make_unique<Float32FallbackPass>(*options.backends,
                                                       std::move(candidates)));
    pipeline.Add(std::make_unique<AutoPlacementPass>(
        *options.backends, *target, options.fallback, options.report));
  }
  // Under the auto policy this only checks what auto placement built.
  pipeline.Add(std::make_unique<StrictPlacementPass>(*options.backends));
  if (options.placement == PlacementPolicy::kStrict) {
    // Judged on each node's own device, so after placement; it places the
    // casts it adds.
    pipeline.Add(std::make_unique<Float32FallbackPass>(*options.backends));
  }
  std::string dump_after = options.dump_after;
  if (const char* env = std::getenv("SWITCHYARD_DUMP_GRAPH_AFTER");
      dump_after.empty() && env != nullptr) {
    dump_after = env;
  }
  pipeline.set_dump_after(dump_after, stderr);
  return pipeline.Run(graph).status();
}

absl::StatusOr<std::unique_ptr<ExecutablePlan>> Compile(
    Graph graph, const CompileOptions& options) {
  PlacementReport report;
  CompileOptions with_report = options;
  with_report.report = &report;
  SY_RETURN_IF_ERROR(InferAndPlace(graph, with_report));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      ExecutablePlan::Lower(std::move(graph), *options.backends,
                                                options.workspaces));
  if (options.report != nullptr) *options.report = report;
  plan->set_placement_report(std::move(report));
  return plan;
}

}  // namespace switchyard
