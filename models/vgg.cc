#include "models/vgg.h"

#include <cmath>
#include <map>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/conv2d.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"

namespace switchyard {
namespace nn {

VggConfig VggConfig::Vgg11() {
  VggConfig c;
  c.layers = {64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg13() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, kPool,
              512, 512, kPool, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg16() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool,
              512, 512, 512, kPool, 512, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg19() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, 256, 256, kPool,
              512, 512, 512, 512, kPool, 512, 512, 512, 512, kPool};
  return c;
}

Vgg::Vgg(const VggConfig& config, BackendRegistry& registry)
    : Module(registry), config_(config) {
  auto features = std::make_unique<Sequential>();
  int64_t channels = config.in_channels;
  Conv2dOptions same;
  same.pad_h = same.pad_w = 1;
  for (int64_t width : config.layers) {
    if (width == VggConfig::kPool) {
      features->Add(std::make_unique<MaxPool2d>(2, 2));
    } else {
      features->Add(std::make_unique<Conv2d>(channels, width, 3, 3, same));
      features->Add(std::make_unique<ReLU>());
      channels = width;
    }
  }
  features_ = static_cast<Sequential*>(RegisterChild("features", std::move(features)));
  avgpool_ = RegisterChild("avgpool", std::make_unique<AdaptiveAvgPool2d>(
                                          config.avgpool, config.avgpool));
  auto classifier = std::make_unique<Sequential>();
  classifier->Add(std::make_unique<Linear>(channels * config.avgpool * config.avgpool,
                                           config.hidden));
  classifier->Add(std::make_unique<ReLU>());
  classifier->Add(std::make_unique<Dropout>(config.dropout));
  classifier->Add(std::make_unique<Linear>(config.hidden, config.hidden));
  classifier->Add(std::make_unique<ReLU>());
  classifier->Add(std::make_unique<Dropout>(config.dropout));
  classifier->Add(std::make_unique<Linear>(config.hidden, config.num_classes));
  classifier_ = static_cast<Sequential*>(RegisterChild("classifier", std::move(classifier)));
}

absl::StatusOr<ValueId> Vgg::Trace(Graph& graph, ValueId x,
                                   const std::string& path) const {
  const Shape& in = *graph.value(x).shape;
  if (in.rank() != 4 || in.dim(1) != config_.in_channels) {
    const std::string got =
        in.rank() != 4 ? absl::StrCat("rank ", in.rank())
                       : absl::StrCat(in.dim(1), in.dim(1) == 1 ? " channel" : " channels");
    return absl::InvalidArgumentError(absl::StrCat(
        "VGG expects images [N, ", config_.in_channels, ", H, W], got ",
        in.ToString(), " (", got, "); give a batch of ", config_.in_channels,
        "-channel images in NCHW order"));
  }
  auto child = [&](const char* name) {
    return path.empty() ? std::string(name) : absl::StrCat(path, ".", name);
  };
  SY_ASSIGN_OR_RETURN(x, features_->Trace(graph, x, child("features")));
  SY_ASSIGN_OR_RETURN(x, avgpool_->Trace(graph, x, child("avgpool")));
  AttrMap flatten;  // torch.flatten(x, 1) in torchvision's forward()
  flatten.Set("start_dim", int64_t{1});
  flatten.Set("end_dim", int64_t{-1});
  x = graph.AddNode("flatten", child("flatten"), {x}, std::move(flatten));
  return classifier_->Trace(graph, x, child("classifier"));
}

absl::Status Vgg::InitializeTorchvisionStyle(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, HostArray> state;
  for (const auto& [name, shape] : ParameterShapes()) {
    HostArray array{shape, std::vector<float>(shape.num_elements(), 0.0f)};
    if (absl::EndsWith(name, ".weight")) {
      // Conv weights are [out, in, kh, kw]: fan_out = out * kh * kw.
      const float stddev =
          shape.rank() == 4
              ? std::sqrt(2.0f / static_cast<float>(shape.dim(0) * shape.dim(2) *
                                                    shape.dim(3)))
              : 0.01f;
      for (float& v : array.mutable_values()) v = NormalSample(rng, stddev);
    }
    state[name] = std::move(array);
  }
  return LoadStateDict(state);
}

}  // namespace nn
}  // namespace switchyard
