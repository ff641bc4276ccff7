#ifndef SWITCHYARD_MODELS_MODEL_ZOO_H_
#define SWITCHYARD_MODELS_MODEL_ZOO_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/module.h"

namespace switchyard {

// Models the command line knows by name, with their input shapes.
//
//   absl::StatusOr<std::unique_ptr<Module>> m = CreateModel("vgg11");
//   SY_RETURN_IF_ERROR(InitializeModel(**m, /*seed=*/0));  // or LoadStateDict
//   Shape in = *ModelInputShape("vgg11", /*batch=*/8);  // [8, 3, 224, 224]

// A kind of model file the command line opens by path, by extension
// (".onnx": registered by onnx/, which the CLI links). `load` gives the model
// with its weights from the file; `input_shape` the shape of its one input
// for `batch` (dimension 0), or the whole `override` when given.
struct ModelFileFormat {
  std::function<absl::StatusOr<std::unique_ptr<Module>>(const std::string& path,
                                                        BackendRegistry&)>
      load;
  std::function<absl::StatusOr<Shape>(const std::string& path, int64_t batch,
                                      const std::optional<Shape>& override)>
      input_shape;
};
bool RegisterModelFileFormat(const std::string& extension, ModelFileFormat format);

// A built-in model with its parameters not yet materialized, or a model
// file (a path with a registered extension) with its weights.
absl::StatusOr<std::unique_ptr<Module>> CreateModel(
    const std::string& name,
    BackendRegistry& registry = BackendRegistry::Global());

// The model's documented seeded initialisation (torchvision's scheme for
// VGG). A model whose parameters all have values already (one loaded from a
// file) is left as it is.
absl::Status InitializeModel(Module& model, uint64_t seed);

// All parameters and buffers zero: for tools that need the structure, not
// the values. A model loaded from a file is left as it is.
absl::Status ZeroModel(Module& model);

// The input shape for `batch`; `override` (the CLI's --input_shape) is for
// model files with symbolic or other dimensions.
absl::StatusOr<Shape> ModelInputShape(
    const std::string& name, int64_t batch,
    const std::optional<Shape>& override = std::nullopt);

std::vector<std::string> ModelNames();

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_MODEL_ZOO_H_
