#ifndef SWITCHYARD_MODELS_MODEL_ZOO_H_
#define SWITCHYARD_MODELS_MODEL_ZOO_H_

#include <memory>
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

// The model with its parameters not yet materialized.
absl::StatusOr<std::unique_ptr<Module>> CreateModel(
    const std::string& name,
    BackendRegistry& registry = BackendRegistry::Global());

// The model's documented seeded initialisation (torchvision's scheme for VGG).
absl::Status InitializeModel(Module& model, uint64_t seed);

// All parameters and buffers zero: for tools that need the structure, not
// the values.
absl::Status ZeroModel(Module& model);

absl::StatusOr<Shape> ModelInputShape(const std::string& name, int64_t batch);

std::vector<std::string> ModelNames();

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_MODEL_ZOO_H_
