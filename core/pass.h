#ifndef SWITCHYARD_CORE_PASS_H_
#define SWITCHYARD_CORE_PASS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph.h"

namespace switchyard {

// A transformation or check over a Graph, as XLA's HloPassInterface:
// name() is kebab-case and Run returns whether the graph changed.
class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  virtual absl::StatusOr<bool> Run(Graph& graph) = 0;
};

// Runs passes in order; an error is prefixed with the failing pass's name,
// e.g. "strict-placement: node 'features.0/conv2d' ...".
//
//   PassPipeline pipeline;
//   pipeline.Add(std::make_unique<ShapeInferencePass>());
//   absl::StatusOr<bool> changed = pipeline.Run(graph);
class PassPipeline {
 public:
  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  absl::StatusOr<bool> Run(Graph& graph);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASS_H_
