#include "core/compile.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/pass.h"
#include "core/passes/auto_placement.h"
#include "core/passes/fold_batch_norm.h"
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
  if (options.fold_batch_norm) {
    pipeline.Add(std::make_unique<FoldBatchNormPass>());
  }
  if (options.placement == PlacementPolicy::kAuto) {
    std::optional<Device> target = options.target ? options.target : DefaultTarget(graph);
    if (!target) {
      return absl::InvalidArgumentError(
          "auto placement needs a target device and the graph has no inputs "
          "or parameters to take it from");
    }
    pipeline.Add(std::make_unique<AutoPlacementPass>(
        *options.backends, *target, options.fallback, options.report));
  }
  // Under the auto policy this only checks what auto placement built.
  pipeline.Add(std::make_unique<StrictPlacementPass>(*options.backends));
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
                      ExecutablePlan::Lower(std::move(graph), *options.backends));
  if (options.report != nullptr) *options.report = report;
  plan->set_placement_report(std::move(report));
  return plan;
}

}  // namespace switchyard
