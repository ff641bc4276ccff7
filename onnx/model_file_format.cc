// Registers ".onnx" with the model zoo, so `switchyard run|bench|graph
// --model=path/to/model.onnx` opens ONNX files (models/model_zoo.h).

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace {

// ModelInputShape gives one shape: refuse models with several inputs,
// naming them (the command line binds those itself: tools/cli/model_inputs.h).
absl::Status CheckOneInput(const std::string& path,
                           const std::vector<OnnxValueInfo>& inputs) {
  if (inputs.size() == 1) return absl::OkStatus();
  std::vector<std::string> listed;
  for (const OnnxValueInfo& in : inputs) listed.push_back(in.ToString());
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": ModelInputShape describes one input; this model takes ",
      inputs.size(), " (", listed.empty() ? "none" : absl::StrJoin(listed, ", "),
      "): use OnnxModel::InputSpecs"));
}

absl::StatusOr<std::unique_ptr<Module>> LoadOnnx(const std::string& path,
                                                 BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> model, OnnxModel::Load(path, registry));
  return std::unique_ptr<Module>(std::move(model));
}

absl::StatusOr<Shape> OnnxInputShape(const std::string& path, int64_t batch,
                                     const std::optional<Shape>& override) {
  // The declared inputs, read once per path (a parse without the checks).
  static auto* declared = new std::map<std::string, std::vector<OnnxValueInfo>>;
  auto it = declared->find(path);
  if (it == declared->end()) {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> model,
                        OnnxModel::Load(path, BackendRegistry::Global(), /*check=*/false));
    SY_RETURN_IF_ERROR(CheckOneInput(path, model->inputs()));
    it = declared->emplace(path, model->inputs()).first;
  }
  const OnnxValueInfo& in = it->second[0];
  if (override.has_value()) {
    if (in.has_shape && override->rank() != static_cast<int>(in.dims.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": input ", in.ToString(), " has rank ", in.dims.size(),
          "; --input_shape gave ", override->ToString()));
    }
    return *override;
  }
  if (!in.has_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": input '", in.name, "' has no declared shape; give one with "
        "--input_shape=1x3x224x224"));
  }
  std::vector<int64_t> dims;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    if (d == 0) {
      dims.push_back(batch);
    } else if (in.dims[d].has_value()) {
      dims.push_back(*in.dims[d]);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": input ", in.ToString(), ": dimension ", d,
          " is symbolic; give the whole shape with --input_shape=1x3x224x224 "
          "(for example)"));
    }
  }
  return Shape(dims);
}

const bool kRegistered = RegisterModelFileFormat(
    ".onnx", ModelFileFormat{&LoadOnnx, &OnnxInputShape});

}  // namespace
}  // namespace switchyard
