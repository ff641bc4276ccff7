#include "models/model_zoo.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/match.h"
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

std::map<std::string, ModelFileFormat>& FileFormats() {
  static auto* formats = new std::map<std::string, ModelFileFormat>;
  return *formats;
}

const ModelFileFormat* FileFormatOf(const std::string& name) {
  for (const auto& [extension, format] : FileFormats()) {
    if (absl::EndsWith(name, extension)) return &format;
  }
  return nullptr;
}

// A model loaded from a file: every parameter already has its value.
bool HasAllParameters(const Module& model) {
  const std::vector<std::pair<std::string, const Tensor*>> params =
      model.NamedParameters();
  return !params.empty() &&
         std::all_of(params.begin(), params.end(),
                     [](const auto& p) { return p.second->defined(); });
}

absl::Status UnknownModel(const std::string& name) {
  std::vector<std::string> files;
  for (const auto& [extension, format] : FileFormats()) {
    files.push_back(absl::StrCat("a path to a ", extension, " file"));
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown model '", name, "'; known: ", absl::StrJoin(ModelNames(), ", "),
      files.empty() ? "" : absl::StrCat(", or ", absl::StrJoin(files, ", "))));
}

}  // namespace

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, config] : Vggs()) names.push_back(name);
  return names;
}

bool RegisterModelFileFormat(const std::string& extension, ModelFileFormat format) {
  FileFormats()[extension] = std::move(format);
  return true;
}

absl::StatusOr<std::unique_ptr<Module>> CreateModel(const std::string& name,
                                                    BackendRegistry& registry) {
  if (const ModelFileFormat* format = FileFormatOf(name)) {
    return format->load(name, registry);
  }
  auto it = Vggs().find(name);
  if (it == Vggs().end()) return UnknownModel(name);
  return std::unique_ptr<Module>(std::make_unique<nn::Vgg>(it->second(), registry));
}

absl::Status InitializeModel(Module& model, uint64_t seed) {
  if (HasAllParameters(model)) return absl::OkStatus();
  if (auto* vgg = dynamic_cast<nn::Vgg*>(&model)) {
    return vgg->InitializeTorchvisionStyle(seed);
  }
  return model.InitializeParameters(seed);
}

absl::Status ZeroModel(Module& model) {
  if (HasAllParameters(model)) return absl::OkStatus();
  std::map<std::string, HostArray> zeros;
  for (const StateSpec& spec : model.StateSpecs()) {
    zeros[spec.name] = HostArray(
        spec.shape, spec.dtype,
        std::vector<char>(spec.shape.num_elements() * DTypeSize(spec.dtype)));
  }
  return model.LoadStateDict(zeros);
}

absl::StatusOr<Shape> ModelInputShape(const std::string& name, int64_t batch,
                                      const std::optional<Shape>& override) {
  if (batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be >= 1, got ", batch));
  }
  if (const ModelFileFormat* format = FileFormatOf(name)) {
    return format->input_shape(name, batch, override);
  }
  if (Vggs().count(name) == 0) return UnknownModel(name);
  if (override.has_value()) {
    if (override->rank() != 4 || override->dim(1) != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " takes [N, 3, H, W]; --input_shape gave ", override->ToString()));
    }
    return *override;
  }
  return Shape({batch, 3, 224, 224});
}

}  // namespace switchyard
