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
//
// The types after kBool are the storage types of quantized models (ONNX's
// QuantizeLinear, DequantizeLinear and Cast): data-movement ops, cast and
// the quantization ops take them; arithmetic does not. int4 and uint4 are
// held one value per byte (int4 sign-extended into an int8); ONNX files
// pack two per byte, which the importer unpacks. The four float8 types are
// held as their 8-bit patterns (e4m3fn: no infinity, one NaN pattern per
// sign; the fnuz types: no negative zero, 0x80 is their only NaN).
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
  kInt16,
  kUInt16,
  kInt4,
  kUInt4,
  kFloat8E4M3FN,
  kFloat8E4M3FNUZ,
  kFloat8E5M2,
  kFloat8E5M2FNUZ,
};

// Every dtype, in the enum's order.
const std::vector<DType>& AllDTypes();

// "float32", "float16", "bfloat16", "float64", "int64", "int32", "int8",
// "uint8", "bool", "int16", "uint16", "int4", "uint4", "float8_e4m3fn",
// "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz" (PyTorch's names).
std::string DTypeName(DType dtype);

// Bytes per element as held in memory (1 for int4 and uint4).
size_t DTypeSize(DType dtype);

// The float types, float8 included.
bool IsFloatingPoint(DType dtype);

// The four float8 types.
bool IsFloat8(DType dtype);

// The least and greatest values of an integer dtype (int4: -8 and 7; bool:
// 0 and 1). Both 0 for floating dtypes.
int64_t IntegerMin(DType dtype);
int64_t IntegerMax(DType dtype);

// Accepts the names DTypeName prints and PyTorch's aliases ("float",
// "half", "double", "long", "int", "short").
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
template <> constexpr DType DTypeOf<int16_t>() { return DType::kInt16; }
template <> constexpr DType DTypeOf<uint16_t>() { return DType::kUInt16; }

// IEEE half and bfloat16 conversions (round to nearest even), for host-side
// code such as file readers, printing and reference kernels.
float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);

// float8 conversions, for `type` one of the four float8 dtypes. To float:
// exact. From float: rounded to nearest even; a value past the type's
// largest finite one becomes that value when `saturate` (ONNX Cast-19's
// default), else infinity (e5m2) or NaN (the types without infinity);
// infinity itself saturates the same way; NaN stays NaN.
float Float8ToFloat(uint8_t bits, DType type);
uint8_t FloatToFloat8(float value, DType type, bool saturate);

// Element `index` of `data` (a host array of `dtype`) as a double, and the
// reverse (rounding and saturating as a C++ conversion would, float8
// saturating too; for bool, non-zero is true). For printing, tests and
// reference kernels.
double ElementAsDouble(const void* data, DType dtype, int64_t index);
void SetElementFromDouble(void* data, DType dtype, int64_t index, double value);

inline std::ostream& operator<<(std::ostream& os, DType dtype) {
  return os << DTypeName(dtype);
}

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DTYPE_H_
