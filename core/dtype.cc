#include "core/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

const std::vector<DType>& AllDTypes() {
  static const auto* all = new std::vector<DType>{
      DType::kFloat32, DType::kFloat16, DType::kBFloat16,
      DType::kFloat64, DType::kInt64,   DType::kInt32,
      DType::kInt8,    DType::kUInt8,   DType::kBool};
  return *all;
}

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat64: return "float64";
    case DType::kInt64: return "int64";
    case DType::kInt32: return "int32";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
    case DType::kInt64:
      return 8;
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kBool:
      return 1;
  }
  return 0;
}

bool IsFloatingPoint(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16 || dtype == DType::kFloat64;
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (DType d : AllDTypes()) {
    if (name == DTypeName(d)) return d;
  }
  if (name == "float") return DType::kFloat32;
  if (name == "half") return DType::kFloat16;
  if (name == "double") return DType::kFloat64;
  if (name == "long") return DType::kInt64;
  if (name == "int") return DType::kInt32;
  std::vector<std::string> names;
  for (DType d : AllDTypes()) names.push_back(DTypeName(d));
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", name, "'; supported: ", absl::StrJoin(names, ", ")));
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out;
  if (exponent == 0x1f) {  // inf or nan
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // zero
    out = sign;
  } else {  // subnormal: normalize
    int shift = 0;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    out = sign | ((113 - shift) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

uint16_t FloatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00;  // nan
  if (abs >= 0x477ff000u) return sign | 0x7c00;  // rounds to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    // value * 2^24 rounded to nearest even is the subnormal's mantissa.
    float f;
    std::memcpy(&f, &abs, 4);
    const float scaled = f * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent, round the 13 dropped bits to nearest even.
  const uint32_t rebiased = abs - (112u << 23);
  const uint32_t rounded =
      rebiased + 0xfffu + ((rebiased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

float BFloat16ToFloat(uint16_t bits) {
  const uint32_t x = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t FloatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet nan
  }
  const uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

namespace {

template <typename T>
T Load(const void* data, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + index * sizeof(T),
              sizeof(T));
  return v;
}

template <typename T>
void Store(void* data, int64_t index, T v) {
  std::memcpy(static_cast<char*>(data) + index * sizeof(T), &v, sizeof(T));
}

// A C++ conversion to an integer type is undefined out of range; this
// saturates (and maps nan to 0), as the reverse of ElementAsDouble needs.
template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

}  // namespace

double ElementAsDouble(const void* data, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::kFloat32: return Load<float>(data, index);
    case DType::kFloat16: return HalfToFloat(Load<uint16_t>(data, index));
    case DType::kBFloat16: return BFloat16ToFloat(Load<uint16_t>(data, index));
    case DType::kFloat64: return Load<double>(data, index);
    case DType::kInt64: return static_cast<double>(Load<int64_t>(data, index));
    case DType::kInt32: return Load<int32_t>(data, index);
    case DType::kInt8: return Load<int8_t>(data, index);
    case DType::kUInt8: return Load<uint8_t>(data, index);
    case DType::kBool: return Load<uint8_t>(data, index) != 0 ? 1.0 : 0.0;
  }
  return 0;
}

void SetElementFromDouble(void* data, DType dtype, int64_t index,
                          double value) {
  switch (dtype) {
    case DType::kFloat32:
      return Store<float>(data, index, static_cast<float>(value));
    case DType::kFloat16:
      return Store<uint16_t>(data, index,
                             FloatToHalf(static_cast<float>(value)));
    case DType::kBFloat16:
      return Store<uint16_t>(data, index,
                             FloatToBFloat16(static_cast<float>(value)));
    case DType::kFloat64:
      return Store<double>(data, index, value);
    case DType::kInt64:
      return Store<int64_t>(data, index, SaturatingCast<int64_t>(value));
    case DType::kInt32:
      return Store<int32_t>(data, index, SaturatingCast<int32_t>(value));
    case DType::kInt8:
      return Store<int8_t>(data, index, SaturatingCast<int8_t>(value));
    case DType::kUInt8:
      return Store<uint8_t>(data, index, SaturatingCast<uint8_t>(value));
    case DType::kBool:
      return Store<uint8_t>(data, index, value != 0 ? 1 : 0);
  }
}

}  // namespace switchyard
