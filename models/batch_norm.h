#ifndef SWITCHYARD_MODELS_BATCH_NORM_H_
#define SWITCHYARD_MODELS_BATCH_NORM_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/module.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace nn {

// torch.nn.BatchNorm2d at inference (eval mode): per channel of an
// [N, C, H, W] input, y = (x - running_mean) / sqrt(running_var + eps)
// * weight + bias, as the "batch_norm" op (ops/batch_norm.cc). Parameters
// "weight" and "bias" [C]; buffers "running_mean" and "running_var" [C] and
// "num_batches_tracked" (an int64 scalar, loaded and kept for torchvision
// state dicts, unused at inference). Initialised as PyTorch does: weight 1,
// bias 0, running_mean 0, running_var 1, num_batches_tracked 0 (no random
// draws). Compiling folds it into a preceding Conv2d when it can
// (passes/fold_batch_norm.h).
//
//   BatchNorm2d bn(64);                   // eps 1e-5
//   SY_RETURN_IF_ERROR(model.LoadSafetensors("resnet18.safetensors"));
class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5);
  std::string type_name() const override { return "BatchNorm2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

  int64_t num_features() const { return num_features_; }
  double eps() const { return attrs_.epsilon; }

 protected:
  std::vector<float> InitialValues(const std::string& name, const Shape& shape,
                                   std::mt19937_64& rng) const override;
  std::vector<float> InitialBufferValues(const std::string& name,
                                         const Shape& shape) const override;

 private:
  int64_t num_features_;
  BatchNormAttrs attrs_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_BATCH_NORM_H_
