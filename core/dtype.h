#ifndef SWITCHYARD_CORE_DTYPE_H_
#define SWITCHYARD_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {

// Element type of a tensor, as PyTorch names them. Which dtypes an op runs
// in is up to each backend's kernels (core/kernel_registry.h); float32 is
// the fast path everywhere.
//
//   DType t = DType::kBFloat16;
//   DTypeSize(t) == 2; DTypeName(t) == "bfloat16"
enum class DType {
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt64,
  kInt32,
  kInt8,
  kUInt8,
  kBool,
};

// Every dtype, in the enum's order.
const std::vector<DType>& AllDTypes();

// "float32", "float16", "bfloat16", "float64", "int64", "int32", "int8",
// "uint8", "bool".
std::string DTypeName(DType dtype);

// Bytes per element.
size_t DTypeSize(DType dtype);

bool IsFloatingPoint(DType dtype);

// Accepts the names DTypeName prints and PyTorch's aliases ("float",
// "half", "double", "long", "int").
absl::StatusOr<DType> ParseDType(absl::string_view name);

// The dtype of a C++ element type: DTypeOf<float>() == DType::kFloat32.
// (float16 and bfloat16 have no C++ type here; kernels read them as
// uint16_t bits.)
template <typename T>
constexpr DType DTypeOf();
template <> constexpr DType DTypeOf<float>() { return DType::kFloat32; }
template <> constexpr DType DTypeOf<double>() { return DType::kFloat64; }
template <> constexpr DType DTypeOf<int64_t>() { return DType::kInt64; }
template <> constexpr DType DTypeOf<int32_t>() { return DType::kInt32; }
template <> constexpr DType DTypeOf<int8_t>() { return DType::kInt8; }
template <> constexpr DType DTypeOf<uint8_t>() { return DType::kUInt8; }
template <> constexpr DType DTypeOf<bool>() { return DType::kBool; }

// IEEE half and bfloat16 conversions (round to nearest even), for host-side
// code such as file readers, printing and reference kernels.
float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);

// Element `index` of `data` (a host array of `dtype`) as a double, and the
// reverse (rounding and saturating as a C++ conversion would; for bool,
// non-zero is true). For printing, tests and reference kernels.
double ElementAsDouble(const void* data, DType dtype, int64_t index);
void SetElementFromDouble(void* data, DType dtype, int64_t index, double value);

inline std::ostream& operator<<(std::ostream& os, DType dtype) {
  return os << DTypeName(dtype);
}

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DTYPE_H_
