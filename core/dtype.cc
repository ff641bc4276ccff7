#include "core/dtype.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
  }
  return "unknown";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 4;
  }
  return 0;
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  if (name == "float32" || name == "float") return DType::kFloat32;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", name, "'; supported: float32"));
}

}  // namespace switchyard
