// cast between any two dtypes through core's element conversions: a
// floating source is read as a double and written with SetElementFromDouble
// (truncation, saturation and NaN -> 0 for integers, "nonzero" for bool,
// rounding to nearest even for floating types; to float8 through float,
// saturating as the node says; to int4 and uint4 rounded to nearest even);
// an integer or bool source is read as int64 and wrapped to an integer
// target (modulo 2^bits; saturated to int4 and uint4), as CastAttrs
// defines.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace reference {
namespace {

int64_t ReadInteger(const void* data, DType dtype, int64_t i) {
  const char* p = static_cast<const char*>(data) + i * DTypeSize(dtype);
  switch (dtype) {
    case DType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return v; }
    case DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kInt8: return static_cast<int8_t>(*p);
    case DType::kUInt8: return static_cast<uint8_t>(*p);
    case DType::kBool: return *p != 0 ? 1 : 0;
    case DType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kUInt16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kInt4: return static_cast<int8_t>(*p);
    case DType::kUInt4: return static_cast<uint8_t>(*p);
    default: return 0;
  }
}

void WriteWrapped(void* data, DType dtype, int64_t i, int64_t v) {
  char* p = static_cast<char*>(data) + i * DTypeSize(dtype);
  const uint64_t bits = static_cast<uint64_t>(v);
  switch (dtype) {
    case DType::kInt64: std::memcpy(p, &bits, 8); return;
    case DType::kInt32: {
      const uint32_t low = static_cast<uint32_t>(bits);
      std::memcpy(p, &low, 4);
      return;
    }
    case DType::kInt8:
    case DType::kUInt8: *p = static_cast<char>(static_cast<uint8_t>(bits)); return;
    case DType::kBool: *p = v != 0 ? 1 : 0; return;
    case DType::kInt16:
    case DType::kUInt16: {
      const uint16_t low = static_cast<uint16_t>(bits);
      std::memcpy(p, &low, 2);
      return;
    }
    case DType::kInt4:
    case DType::kUInt4:  // saturated to the 4-bit range
      *p = static_cast<char>(std::max(IntegerMin(dtype), std::min(IntegerMax(dtype), v)));
      return;
    default: return;
  }
}

bool IsInteger(DType d) { return !IsFloatingPoint(d); }  // bool included

// double to float, +-inf past float's range (a C++ conversion would be
// undefined there).
float ToFloat(double d) {
  if (std::isnan(d)) return NAN;
  if (std::fabs(d) >= 0x1.ffffffp127) return d > 0 ? INFINITY : -INFINITY;
  return static_cast<float>(d);
}

class CastKernel : public Kernel {
 public:
  CastKernel(const RefDevice& device, DType from, DType to, bool saturate)
      : device_(device.device()), from_(from), to_(to), saturate_(saturate) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (inputs.size() != 1 || outputs.size() != 1) {
      return absl::InternalError(absl::StrCat(
          "reference cast got ", inputs.size(), " inputs and ", outputs.size(),
          " outputs; it takes 1 and 1"));
    }
    const Tensor* in = inputs[0];
    const Tensor* out = outputs[0];
    for (const auto& [tensor, dtype, role] :
         {std::tuple{in, from_, "input"}, std::tuple{out, to_, "output"}}) {
      if (tensor == nullptr || !tensor->defined() || tensor->dtype() != dtype ||
          tensor->device() != device_) {
        return absl::InternalError(absl::StrCat(
            "reference cast ", DTypeName(from_), " -> ", DTypeName(to_), ": ",
            role, " is not a defined ", DTypeName(dtype), " tensor on ",
            device_.ToString()));
      }
    }
    const void* src = in->data<void>();
    void* dst = out->data<void>();
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      if (IsInteger(from_) && IsInteger(to_)) {
        WriteWrapped(dst, to_, i, ReadInteger(src, from_, i));
      } else if (to_ == DType::kInt4 || to_ == DType::kUInt4) {
        // Rounded to nearest even, then saturated (NaN: 0).
        const double v = std::nearbyint(ElementAsDouble(src, from_, i));
        WriteWrapped(dst, to_, i, std::isnan(v) ? 0 : static_cast<int64_t>(std::max(-16.0, std::min(16.0, v))));
      } else if (IsFloat8(to_)) {
        static_cast<uint8_t*>(dst)[i] =
            FloatToFloat8(ToFloat(ElementAsDouble(src, from_, i)), to_, saturate_);
      } else {
        SetElementFromDouble(dst, to_, i, ElementAsDouble(src, from_, i));
      }
    }
    return absl::OkStatus();
  }

 private:
  Device device_;
  DType from_, to_;
  bool saturate_;
};

bool RegisterAll() {
  bool ok = true;
  for (DType from : AllDTypes()) {
    ok &= RefKernels().Register(
        "cast", from,
        [from](const Node& node, const Graph& graph,
               RefDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          absl::StatusOr<CastAttrs> attrs = CastAttrs::FromAttrMap(node.attrs);
          if (!attrs.ok()) return attrs.status();
          return std::make_unique<CastKernel>(device, from,
                                              graph.value(node.outputs[0]).dtype,
                                              attrs->saturate);
        });
  }
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
