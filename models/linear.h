#ifndef SWITCHYARD_MODELS_LINEAR_H_
#define SWITCHYARD_MODELS_LINEAR_H_

#include <cstdint>
#include <string>

#include "models/module.h"

namespace switchyard {
namespace nn {

// torch.nn.Linear: y = x W^T + b over the last dimension.
// Parameters "weight" [out, in] and, unless bias is false, "bias" [out].
//
//   Linear fc(25088, 4096);
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  std::string type_name() const override { return "Linear"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  bool bias_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_LINEAR_H_
