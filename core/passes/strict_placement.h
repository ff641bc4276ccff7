#ifndef SWITCHYARD_CORE_PASSES_STRICT_PLACEMENT_H_
#define SWITCHYARD_CORE_PASSES_STRICT_PLACEMENT_H_

#include <string>

#include "core/backend_registry.h"
#include "core/pass.h"

namespace switchyard {

// Places each node on the one device all its operands share, and fails, before
// any kernel runs or memory is allocated, when they do not. Copy nodes are
// the only way across devices: their output is on their "device" attribute.
//
//   before: features.0/conv2d(input on cpu:0, features.0.weight on cuda:0) on ?
//   after:  InvalidArgument "strict-placement: node 'features.0/conv2d' ... are
//           on different devices: ..." listing each operand, and the fix.
//
// It also checks that each device used exists (Unavailable otherwise).
class StrictPlacementPass : public Pass {
 public:
  explicit StrictPlacementPass(BackendRegistry& registry) : registry_(registry) {}
  std::string name() const override { return "strict-placement"; }
  absl::StatusOr<bool> Run(Graph& graph) override;

 private:
  BackendRegistry& registry_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASSES_STRICT_PLACEMENT_H_
