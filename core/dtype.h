#ifndef SWITCHYARD_CORE_DTYPE_H_
#define SWITCHYARD_CORE_DTYPE_H_

#include <cstddef>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {

// Element type of a tensor. Only float32 has kernels today; the enum, its
// name table and ParseDType are where new types get added.
//
//   DType t = DType::kFloat32;
//   DTypeSize(t) == 4; DTypeName(t) == "float32"
enum class DType {
  kFloat32,
};

// "float32".
std::string DTypeName(DType dtype);

// Bytes per element.
size_t DTypeSize(DType dtype);

// Accepts the names DTypeName prints (and "float" as PyTorch does).
absl::StatusOr<DType> ParseDType(absl::string_view name);

inline std::ostream& operator<<(std::ostream& os, DType dtype) {
  return os << DTypeName(dtype);
}

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DTYPE_H_
