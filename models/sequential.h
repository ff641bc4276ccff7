#ifndef SWITCHYARD_MODELS_SEQUENTIAL_H_
#define SWITCHYARD_MODELS_SEQUENTIAL_H_

#include <memory>
#include <string>

#include "models/module.h"

namespace switchyard {
namespace nn {

// torch.nn.Sequential: children named "0", "1", ... applied in order, so
// parameter names read "features.0.weight" as in PyTorch.
//
//   Sequential seq;
//   seq.Add(std::make_unique<Conv2d>(3, 64, 3, 3, pad1));
//   seq.Add(std::make_unique<ReLU>());
class Sequential : public Module {
 public:
  explicit Sequential(BackendRegistry& registry = BackendRegistry::Global())
      : Module(registry) {}
  // Returns the added module.
  Module* Add(std::unique_ptr<Module> module);
  int size() const { return static_cast<int>(children().size()); }
  std::string type_name() const override { return "Sequential"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_SEQUENTIAL_H_
