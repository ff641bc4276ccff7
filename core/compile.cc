#include "core/compile.h"

#include "core/pass.h"
#include "core/passes/shape_inference.h"
#include "core/passes/strict_placement.h"
#include "core/status_macros.h"

namespace switchyard {

absl::Status InferAndPlace(Graph& graph, const CompileOptions& options) {
  PassPipeline pipeline;
  pipeline.Add(std::make_unique<ShapeInferencePass>(*options.ops));
  pipeline.Add(std::make_unique<StrictPlacementPass>(*options.backends));
  return pipeline.Run(graph).status();
}

absl::StatusOr<std::unique_ptr<ExecutablePlan>> Compile(
    Graph graph, const CompileOptions& options) {
  SY_RETURN_IF_ERROR(InferAndPlace(graph, options));
  return ExecutablePlan::Lower(std::move(graph), *options.backends);
}

}  // namespace switchyard
