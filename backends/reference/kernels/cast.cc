// cast between any two of the 9 dtypes through core's element conversions:
// a floating source is read as a double and written with
// SetElementFromDouble (truncation, saturation and NaN -> 0 for integers,
// "nonzero" for bool, rounding to nearest even for floating types); an
// integer or bool source is read as int64 and wrapped to an integer target
// (modulo 2^bits), as CastAttrs defines.

#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"

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
    default: return;
  }
}

bool IsInteger(DType d) { return !IsFloatingPoint(d); }  // bool included

class CastKernel : public Kernel {
 public:
  CastKernel(const RefDevice& device, DType from, DType to)
      : device_(device.device()), from_(from), to_(to) {}

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
      } else {
        SetElementFromDouble(dst, to_, i, ElementAsDouble(src, from_, i));
      }
    }
    return absl::OkStatus();
  }

 private:
  Device device_;
  DType from_, to_;
};

bool RegisterAll() {
  bool ok = true;
  for (DType from : AllDTypes()) {
    ok &= RefKernels().Register(
        "cast", from,
        [from](const Node& node, const Graph& graph,
               RefDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          return std::make_unique<CastKernel>(device, from,
                                              graph.value(node.outputs[0]).dtype);
        });
  }
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
