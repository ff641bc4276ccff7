#ifndef SWITCHYARD_CORE_COMPILE_H_
#define SWITCHYARD_CORE_COMPILE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"

namespace switchyard {

struct CompileOptions {
  BackendRegistry* backends = &BackendRegistry::Global();
  const OpRegistry* ops = &OpRegistry::Global();
};

// The standard pipeline: shape inference, strict placement, lowering. Any
// error happens before a kernel runs or a buffer is allocated, except an
// allocation failure itself.
//
//   absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
absl::StatusOr<std::unique_ptr<ExecutablePlan>> Compile(
    Graph graph, const CompileOptions& options = CompileOptions());

// The first two stages only, for tools that print the placed graph.
absl::Status InferAndPlace(Graph& graph,
                           const CompileOptions& options = CompileOptions());

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_COMPILE_H_
