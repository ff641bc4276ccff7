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
//   absl::StatusOr<std::unique_ptr<Module>> m = CreateModel("vgg11", /*seed=*/0);
//   Shape in = *ModelInputShape("vgg11", /*batch=*/8);  // [8, 3, 224, 224]
absl::StatusOr<std::unique_ptr<Module>> CreateModel(
    const std::string& name, uint64_t seed,
    BackendRegistry& registry = BackendRegistry::Global());

absl::StatusOr<Shape> ModelInputShape(const std::string& name, int64_t batch);

std::vector<std::string> ModelNames();

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_MODEL_ZOO_H_
