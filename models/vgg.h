#ifndef SWITCHYARD_MODELS_VGG_H_
#define SWITCHYARD_MODELS_VGG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/module.h"
#include "models/sequential.h"

namespace switchyard {
namespace nn {

// The shape of a VGG network (Simonyan & Zisserman), as torchvision builds it.
struct VggConfig {
  static constexpr int64_t kPool = 0;  // in `layers`: a 2x2 max pool
  // Conv widths (3x3, padding 1, each followed by ReLU) and kPool marks.
  std::vector<int64_t> layers;
  int64_t in_channels = 3;
  int64_t avgpool = 7;  // AdaptiveAvgPool2d((avgpool, avgpool))
  int64_t hidden = 4096;
  int64_t num_classes = 1000;
  double dropout = 0.5;

  static VggConfig Vgg11();
  static VggConfig Vgg13();
  static VggConfig Vgg16();
  static VggConfig Vgg19();
};

// VGG without batch norm, laid out exactly like torchvision.models.vgg:
// children `features` (Sequential of Conv2d/ReLU/MaxPool2d), `avgpool`,
// and `classifier` (Linear, ReLU, Dropout, Linear, ReLU, Dropout, Linear),
// with a flatten between avgpool and classifier. Parameter names match
// torchvision's state_dict ("features.0.weight" ... "classifier.6.bias"),
// so a torchvision checkpoint saved as .safetensors loads as it is.
//
//   Vgg vgg(VggConfig::Vgg11());
//   SY_RETURN_IF_ERROR(vgg.InitializeTorchvisionStyle(/*seed=*/0));
//   absl::StatusOr<Tensor> logits = vgg.Forward(images);  // [N, 3, 224, 224]
class Vgg : public Module {
 public:
  explicit Vgg(const VggConfig& config,
               BackendRegistry& registry = BackendRegistry::Global());
  std::string type_name() const override { return "VGG"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

  // torchvision's initialisation, seeded: conv weights ~ N(0, 2/fan_out)
  // (Kaiming normal, fan_out = out_channels * 3 * 3), linear weights
  // ~ N(0, 0.01^2), every bias 0. Each block of 2^20 values of each
  // parameter has its own stream (splitmix64 of the seed, the parameter's
  // index and the block's) drawn as Marsaglia polar pairs in float; blocks
  // are drawn on all cores and the values depend on the seed only, never on
  // the thread count (VGG11's 133 M values: ~1.3 s on 2 cores, from ~5.4 s
  // with one sequential mt19937_64).
  absl::Status InitializeTorchvisionStyle(uint64_t seed);

  const VggConfig& config() const { return config_; }

 private:
  VggConfig config_;
  Sequential* features_;
  Module* avgpool_;
  Sequential* classifier_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_VGG_H_
