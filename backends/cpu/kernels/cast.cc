// cast between any two dtypes, by the rules of ops/elementwise_attrs.h
// (CastAttrs): floating -> integer truncates and saturates, NaN -> 0;
// integer -> integer wraps (to int4 and uint4: rounds and saturates); ->
// bool is "nonzero"; -> floating rounds to nearest even, to float8
// saturating as the node's saturate attribute says. Registered by input dtype; the output
// dtype is the node's.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

// float32 from double: IEEE rounding, and +-inf past the largest float's
// rounding boundary (a C++ conversion out of range is undefined).
float DoubleToFloat(double d) {
  if (std::abs(d) >= 0x1.ffffffp127) return std::copysign(INFINITY, d);
  return static_cast<float>(d);
}

// Floating -> integer: NaN 0, truncation toward zero, saturation.
template <typename I>
I FloatingToInteger(double d) {
  if (std::isnan(d)) return 0;
  if (d <= static_cast<double>(std::numeric_limits<I>::lowest())) {
    return std::numeric_limits<I>::lowest();
  }
  if (d >= static_cast<double>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  return static_cast<I>(d);
}

// Integer -> integer: modulo 2^bits of the target (two's complement).
template <typename I>
I WrapInteger(int64_t v) {
  return static_cast<I>(
      static_cast<std::make_unsigned_t<I>>(static_cast<uint64_t>(v)));
}

// How each dtype is stored, read (floating as double, integers and bool
// as int64) and written (from either).
template <DType kDType>
struct Element;

template <>
struct Element<DType::kFloat32> {
  using Storage = float;
  static constexpr bool kFloating = true;
  static double ToDouble(float v) { return v; }
  static float FromDouble(double d) { return DoubleToFloat(d); }
  static float FromInteger(int64_t v) { return static_cast<float>(v); }
};
template <>
struct Element<DType::kFloat64> {
  using Storage = double;
  static constexpr bool kFloating = true;
  static double ToDouble(double v) { return v; }
  static double FromDouble(double d) { return d; }
  static double FromInteger(int64_t v) { return static_cast<double>(v); }
};
template <>
struct Element<DType::kFloat16> {
  using Storage = uint16_t;
  static constexpr bool kFloating = true;
  static double ToDouble(uint16_t v) { return HalfToFloat(v); }
  // Through float: exact for float32 sources; a float64 source rounds twice
  // (off by one half ulp in rare ties).
  static uint16_t FromDouble(double d) { return FloatToHalf(DoubleToFloat(d)); }
  static uint16_t FromInteger(int64_t v) {
    return FloatToHalf(static_cast<float>(v));
  }
};
template <>
struct Element<DType::kBFloat16> {
  using Storage = uint16_t;
  static constexpr bool kFloating = true;
  static double ToDouble(uint16_t v) { return BFloat16ToFloat(v); }
  static uint16_t FromDouble(double d) {
    return FloatToBFloat16(DoubleToFloat(d));
  }
  static uint16_t FromInteger(int64_t v) {
    return FloatToBFloat16(static_cast<float>(v));
  }
};
template <DType kDType, typename I>
struct IntegerElement {
  using Storage = I;
  static constexpr bool kFloating = false;
  static int64_t ToInteger(I v) { return v; }
  static I FromDouble(double d) { return FloatingToInteger<I>(d); }
  static I FromInteger(int64_t v) { return WrapInteger<I>(v); }
};
template <>
struct Element<DType::kInt64> : IntegerElement<DType::kInt64, int64_t> {};
template <>
struct Element<DType::kInt32> : IntegerElement<DType::kInt32, int32_t> {};
template <>
struct Element<DType::kInt8> : IntegerElement<DType::kInt8, int8_t> {};
template <>
struct Element<DType::kUInt8> : IntegerElement<DType::kUInt8, uint8_t> {};
template <>
struct Element<DType::kInt16> : IntegerElement<DType::kInt16, int16_t> {};
template <>
struct Element<DType::kUInt16> : IntegerElement<DType::kUInt16, uint16_t> {};

// int4 and uint4, one per byte: floating values round to nearest even,
// and every value saturates to the 4-bit range (NaN: 0).
template <typename S, int kLow, int kHigh>
struct FourBitElement {
  using Storage = S;
  static constexpr bool kFloating = false;
  static int64_t ToInteger(S v) { return v; }
  static S FromDouble(double d) {
    const double r = std::nearbyint(d);
    if (std::isnan(r)) return 0;
    return static_cast<S>(std::max<double>(kLow, std::min<double>(kHigh, r)));
  }
  static S FromInteger(int64_t v) {
    return static_cast<S>(std::max<int64_t>(kLow, std::min<int64_t>(kHigh, v)));
  }
};
template <>
struct Element<DType::kInt4> : FourBitElement<int8_t, -8, 7> {};
template <>
struct Element<DType::kUInt4> : FourBitElement<uint8_t, 0, 15> {};

// The float8 types, whose conversions from numbers take `saturate`.
struct Float8Tag {};
template <DType kType>
struct Float8Element : Float8Tag {
  using Storage = uint8_t;
  static constexpr bool kFloating = true;
  static double ToDouble(uint8_t v) { return Float8ToFloat(v, kType); }
  // Through float, as ONNX Runtime converts.
  static uint8_t FromDouble(double d, bool saturate) {
    return FloatToFloat8(DoubleToFloat(d), kType, saturate);
  }
  static uint8_t FromInteger(int64_t v, bool saturate) {
    return FloatToFloat8(static_cast<float>(v), kType, saturate);
  }
};
template <>
struct Element<DType::kFloat8E4M3FN> : Float8Element<DType::kFloat8E4M3FN> {};
template <>
struct Element<DType::kFloat8E4M3FNUZ> : Float8Element<DType::kFloat8E4M3FNUZ> {};
template <>
struct Element<DType::kFloat8E5M2> : Float8Element<DType::kFloat8E5M2> {};
template <>
struct Element<DType::kFloat8E5M2FNUZ> : Float8Element<DType::kFloat8E5M2FNUZ> {};

template <typename To>
typename To::Storage FromDoubleTo(double d, bool saturate) {
  if constexpr (std::is_base_of_v<Float8Tag, To>) {
    return To::FromDouble(d, saturate);
  } else {
    return To::FromDouble(d);
  }
}
template <typename To>
typename To::Storage FromIntegerTo(int64_t v, bool saturate) {
  if constexpr (std::is_base_of_v<Float8Tag, To>) {
    return To::FromInteger(v, saturate);
  } else {
    return To::FromInteger(v);
  }
}

template <>
struct Element<DType::kBool> {
  using Storage = uint8_t;
  static constexpr bool kFloating = false;
  static int64_t ToInteger(uint8_t v) { return v != 0 ? 1 : 0; }
  static uint8_t FromDouble(double d) { return d != 0 ? 1 : 0; }  // NaN: 1
  static uint8_t FromInteger(int64_t v) { return v != 0 ? 1 : 0; }
};

template <DType kFrom, DType kTo>
void Convert(const void* in, void* out, int64_t begin, int64_t end, bool saturate) {
  using From = Element<kFrom>;
  using To = Element<kTo>;
  const auto* src = static_cast<const typename From::Storage*>(in);
  auto* dst = static_cast<typename To::Storage*>(out);
  for (int64_t i = begin; i < end; ++i) {
    if constexpr (kFrom == kTo) {
      dst[i] = src[i];
    } else if constexpr (From::kFloating) {
      dst[i] = FromDoubleTo<To>(From::ToDouble(src[i]), saturate);
    } else {
      dst[i] = FromIntegerTo<To>(From::ToInteger(src[i]), saturate);
    }
  }
}

using ConvertFn = void (*)(const void*, void*, int64_t, int64_t, bool);

template <DType kFrom>
ConvertFn ConverterTo(DType to) {
  switch (to) {
    case DType::kFloat32: return &Convert<kFrom, DType::kFloat32>;
    case DType::kFloat16: return &Convert<kFrom, DType::kFloat16>;
    case DType::kBFloat16: return &Convert<kFrom, DType::kBFloat16>;
    case DType::kFloat64: return &Convert<kFrom, DType::kFloat64>;
    case DType::kInt64: return &Convert<kFrom, DType::kInt64>;
    case DType::kInt32: return &Convert<kFrom, DType::kInt32>;
    case DType::kInt8: return &Convert<kFrom, DType::kInt8>;
    case DType::kUInt8: return &Convert<kFrom, DType::kUInt8>;
    case DType::kBool: return &Convert<kFrom, DType::kBool>;
    case DType::kInt16: return &Convert<kFrom, DType::kInt16>;
    case DType::kUInt16: return &Convert<kFrom, DType::kUInt16>;
    case DType::kInt4: return &Convert<kFrom, DType::kInt4>;
    case DType::kUInt4: return &Convert<kFrom, DType::kUInt4>;
    case DType::kFloat8E4M3FN: return &Convert<kFrom, DType::kFloat8E4M3FN>;
    case DType::kFloat8E4M3FNUZ: return &Convert<kFrom, DType::kFloat8E4M3FNUZ>;
    case DType::kFloat8E5M2: return &Convert<kFrom, DType::kFloat8E5M2>;
    case DType::kFloat8E5M2FNUZ: return &Convert<kFrom, DType::kFloat8E5M2FNUZ>;
  }
  return nullptr;
}

class CastKernel : public Kernel {
 public:
  CastKernel(std::shared_ptr<const CpuContext> context, ConvertFn convert, bool saturate)
      : context_(std::move(context)), convert_(convert), saturate_(saturate) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const void* in = inputs[0]->data<void>();
    void* out = outputs[0]->data<void>();
    ForEachRange(*context_, outputs[0]->num_elements(), [&](int64_t begin, int64_t end) {
      convert_(in, out, begin, end, saturate_);
    });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  ConvertFn convert_;
  bool saturate_;
};

template <DType kFrom>
absl::StatusOr<std::unique_ptr<Kernel>> MakeCast(const Node& node,
                                                 const Graph& graph,
                                                 CpuDevice& device) {
  const DType to = graph.value(node.outputs[0]).dtype;
  ConvertFn convert = ConverterTo<kFrom>(to);
  if (convert == nullptr) {
    return absl::InternalError(absl::StrCat("cast to an unknown dtype ",
                                            static_cast<int>(to)));
  }
  absl::StatusOr<CastAttrs> attrs = CastAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<CastKernel>(device.context(), convert, attrs->saturate);
}

template <DType... kFroms>
bool RegisterCasts() {
  return ((CpuKernels().Register("cast", kFroms, &MakeCast<kFroms>)) & ...);
}

[[maybe_unused]] const bool kRegistered =
    RegisterCasts<DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                  DType::kFloat64, DType::kInt64, DType::kInt32, DType::kInt8,
                  DType::kUInt8, DType::kBool, DType::kInt16, DType::kUInt16,
                  DType::kInt4, DType::kUInt4, DType::kFloat8E4M3FN,
                  DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2, DType::kFloat8E5M2FNUZ>();

}  // namespace
}  // namespace cpu
}  // namespace switchyard
