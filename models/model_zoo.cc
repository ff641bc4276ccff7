#include "models/model_zoo.h"

#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "models/vgg.h"

namespace switchyard {
namespace {

const std::map<std::string, std::function<nn::VggConfig()>>& Vggs() {
  static const auto* vggs = new std::map<std::string, std::function<nn::VggConfig()>>{
      {"vgg11", &nn::VggConfig::Vgg11},
      {"vgg13", &nn::VggConfig::Vgg13},
      {"vgg16", &nn::VggConfig::Vgg16},
      {"vgg19", &nn::VggConfig::Vgg19},
  };
  return *vggs;
}

absl::Status UnknownModel(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("unknown model '", name, "'; known: ",
                                          absl::StrJoin(ModelNames(), ", ")));
}

}  // namespace

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, config] : Vggs()) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Module>> CreateModel(const std::string& name,
                                                    BackendRegistry& registry) {
  auto it = Vggs().find(name);
  if (it == Vggs().end()) return UnknownModel(name);
  return std::unique_ptr<Module>(std::make_unique<nn::Vgg>(it->second(), registry));
}

absl::Status InitializeModel(Module& model, uint64_t seed) {
  if (auto* vgg = dynamic_cast<nn::Vgg*>(&model)) {
    return vgg->InitializeTorchvisionStyle(seed);
  }
  return model.InitializeParameters(seed);
}

absl::Status ZeroModel(Module& model) {
  std::map<std::string, HostArray> zeros;
  for (const StateSpec& spec : model.StateSpecs()) {
    zeros[spec.name] = HostArray(
        spec.shape, spec.dtype,
        std::vector<char>(spec.shape.num_elements() * DTypeSize(spec.dtype)));
  }
  return model.LoadStateDict(zeros);
}

absl::StatusOr<Shape> ModelInputShape(const std::string& name, int64_t batch) {
  if (Vggs().count(name) == 0) return UnknownModel(name);
  if (batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be >= 1, got ", batch));
  }
  return Shape({batch, 3, 224, 224});
}

}  // namespace switchyard
