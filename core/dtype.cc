#include "core/dtype.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

const std::vector<DType>& AllDTypes() {
  static const auto* all = new std::vector<DType>{
      DType::kFloat32,       DType::kFloat16,        DType::kBFloat16,
      DType::kFloat64,       DType::kInt64,          DType::kInt32,
      DType::kInt8,          DType::kUInt8,          DType::kBool,
      DType::kInt16,         DType::kUInt16,         DType::kInt4,
      DType::kUInt4,         DType::kFloat8E4M3FN,   DType::kFloat8E4M3FNUZ,
      DType::kFloat8E5M2,    DType::kFloat8E5M2FNUZ};
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
    case DType::kInt16: return "int16";
    case DType::kUInt16: return "uint16";
    case DType::kInt4: return "int4";
    case DType::kUInt4: return "uint4";
    case DType::kFloat8E4M3FN: return "float8_e4m3fn";
    case DType::kFloat8E4M3FNUZ: return "float8_e4m3fnuz";
    case DType::kFloat8E5M2: return "float8_e5m2";
    case DType::kFloat8E5M2FNUZ: return "float8_e5m2fnuz";
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
    case DType::kInt16:
    case DType::kUInt16:
      return 2;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kBool:
    case DType::kInt4:
    case DType::kUInt4:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return 1;
  }
  return 0;
}

bool IsFloatingPoint(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16 || dtype == DType::kFloat64 ||
         IsFloat8(dtype);
}

bool IsFloat8(DType dtype) {
  return dtype == DType::kFloat8E4M3FN || dtype == DType::kFloat8E4M3FNUZ ||
         dtype == DType::kFloat8E5M2 || dtype == DType::kFloat8E5M2FNUZ;
}

int64_t IntegerMin(DType dtype) {
  switch (dtype) {
    case DType::kInt64: return std::numeric_limits<int64_t>::min();
    case DType::kInt32: return std::numeric_limits<int32_t>::min();
    case DType::kInt16: return std::numeric_limits<int16_t>::min();
    case DType::kInt8: return std::numeric_limits<int8_t>::min();
    case DType::kInt4: return -8;
    default: return 0;
  }
}

int64_t IntegerMax(DType dtype) {
  switch (dtype) {
    case DType::kInt64: return std::numeric_limits<int64_t>::max();
    case DType::kInt32: return std::numeric_limits<int32_t>::max();
    case DType::kInt16: return std::numeric_limits<int16_t>::max();
    case DType::kUInt16: return std::numeric_limits<uint16_t>::max();
    case DType::kInt8: return std::numeric_limits<int8_t>::max();
    case DType::kUInt8: return std::numeric_limits<uint8_t>::max();
    case DType::kInt4: return 7;
    case DType::kUInt4: return 15;
    case DType::kBool: return 1;
    default: return 0;
  }
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
  if (name == "short") return DType::kInt16;
  // ONNX's spelling of the float8 names.
  for (DType d : AllDTypes()) {
    if (!IsFloat8(d)) continue;
    std::string onnx_name = DTypeName(d);
    onnx_name.erase(onnx_name.find('_'), 1);
    if (name == onnx_name) return d;
  }
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

// A float8 type's layout: mantissa bits, exponent bias, and which of the
// special encodings it has.
struct Float8Format {
  int mantissa_bits;
  int bias;
  bool has_infinity;     // e5m2: IEEE-like infinities and NaNs
  bool unsigned_zero;    // fnuz: 0x80 is the only NaN, no negative zero
  double max_finite;
};

Float8Format FormatOf(DType type) {
  switch (type) {
    case DType::kFloat8E4M3FNUZ: return {3, 8, false, true, 240.0};
    case DType::kFloat8E5M2: return {2, 15, true, false, 57344.0};
    case DType::kFloat8E5M2FNUZ: return {2, 16, false, true, 57344.0};
    default: return {3, 7, false, false, 448.0};  // e4m3fn
  }
}

uint8_t Float8NaN(const Float8Format& f, uint8_t sign) {
  if (f.unsigned_zero) return 0x80;
  return sign | 0x7f;  // e4m3fn's NaN; for e5m2 a NaN with all mantissa bits
}

uint8_t DoubleToFloat8(double value, DType type, bool saturate) {
  const Float8Format f = FormatOf(type);
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return Float8NaN(f, sign);
  const double a = std::fabs(value);
  const int min_exponent = 1 - f.bias;  // of the normal numbers
  // Round a to a multiple of its binade's spacing, ties to even (a / quantum
  // is exact: quantum is a power of two).
  double rounded = a;
  if (std::isfinite(a) && a != 0) {
    int exponent;
    std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
    const int binade = std::max(exponent - 1, min_exponent);
    const double quantum = std::ldexp(1.0, binade - f.mantissa_bits);
    rounded = std::nearbyint(a / quantum) * quantum;
  }
  if (rounded > f.max_finite) {
    if (saturate) {
      rounded = f.max_finite;
    } else if (f.has_infinity) {
      return sign | 0x7c;
    } else {
      return Float8NaN(f, sign);
    }
  }
  if (rounded == 0) return f.unsigned_zero ? 0 : sign;
  int exponent;
  std::frexp(rounded, &exponent);
  const int binade = exponent - 1;
  uint32_t biased, mantissa;
  if (binade < min_exponent) {  // subnormal
    biased = 0;
    mantissa = static_cast<uint32_t>(
        std::ldexp(rounded, f.mantissa_bits - min_exponent));
  } else {
    biased = static_cast<uint32_t>(binade + f.bias);
    mantissa = static_cast<uint32_t>(
        std::ldexp(rounded, f.mantissa_bits - binade)) - (1u << f.mantissa_bits);
  }
  return static_cast<uint8_t>(sign | (biased << f.mantissa_bits) | mantissa);
}

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

float Float8ToFloat(uint8_t bits, DType type) {
  const Float8Format f = FormatOf(type);
  const bool negative = (bits & 0x80) != 0;
  const int exponent_bits = 7 - f.mantissa_bits;
  const uint32_t biased = (bits & 0x7f) >> f.mantissa_bits;
  const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  const uint32_t all_ones = (1u << exponent_bits) - 1;
  if (f.unsigned_zero && bits == 0x80) return NAN;
  if (f.has_infinity && biased == all_ones) {
    if (mantissa != 0) return NAN;
    return negative ? -INFINITY : INFINITY;
  }
  if (!f.has_infinity && !f.unsigned_zero && (bits & 0x7f) == 0x7f) return NAN;
  double magnitude;
  if (biased == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa),
                           1 - f.bias - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(
        static_cast<double>(mantissa + (1u << f.mantissa_bits)),
        static_cast<int>(biased) - f.bias - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

uint8_t FloatToFloat8(float value, DType type, bool saturate) {
  return DoubleToFloat8(value, type, saturate);
}

namespace {

// int4 and uint4 are held one per byte: saturate to their 4-bit range.
template <typename T>
T SaturatingCastTo(double v, int64_t low, int64_t high) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(low)) return static_cast<T>(low);
  if (v >= static_cast<double>(high)) return static_cast<T>(high);
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
    case DType::kInt16: return Load<int16_t>(data, index);
    case DType::kUInt16: return Load<uint16_t>(data, index);
    case DType::kInt4: return Load<int8_t>(data, index);
    case DType::kUInt4: return Load<uint8_t>(data, index);
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return Float8ToFloat(Load<uint8_t>(data, index), dtype);
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
    case DType::kInt16:
      return Store<int16_t>(data, index, SaturatingCast<int16_t>(value));
    case DType::kUInt16:
      return Store<uint16_t>(data, index, SaturatingCast<uint16_t>(value));
    case DType::kInt4:
      return Store<int8_t>(data, index, SaturatingCastTo<int8_t>(value, -8, 7));
    case DType::kUInt4:
      return Store<uint8_t>(data, index, SaturatingCastTo<uint8_t>(value, 0, 15));
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return Store<uint8_t>(data, index, DoubleToFloat8(value, dtype, true));
  }
}

}  // namespace switchyard
