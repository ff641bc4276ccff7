#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_SCATTER_UPDATE_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_SCATTER_UPDATE_H_

// What the CPU's scatter_elements and scatter_nd share: how one update
// lands on its element (ONNX's reduction), and the element type a kernel is
// made for. Reduction none moves bytes, so it runs in every dtype (an
// unsigned type of the element's size); the others compute, in float32,
// float64, int64 and int32 (integers wrap; max and min keep a NaN).
//
//   ApplyUpdate(ScatterReduction::kAdd, out[i], update);
//   absl::StatusOr<std::unique_ptr<Kernel>> k = WithScatterType(
//       dtype, reduction, "scatter_nd", [&](auto tag) { ... });

#include <cstdint>
#include <memory>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/dtype.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/wrapping_arithmetic.h"

namespace switchyard {
namespace cpu {

template <typename T>
bool IsNaNUpdate(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

template <typename T>
void ApplyUpdate(ScatterReduction reduction, T& element, T update) {
  constexpr bool kInteger = std::is_integral_v<T>;
  switch (reduction) {
    case ScatterReduction::kNone:
      element = update;
      return;
    case ScatterReduction::kAdd:
      if constexpr (kInteger) {
        element = wrapping::Add(element, update);
      } else {
        element = element + update;
      }
      return;
    case ScatterReduction::kMul:
      if constexpr (kInteger) {
        element = wrapping::Mul(element, update);
      } else {
        element = element * update;
      }
      return;
    case ScatterReduction::kMax:  // a NaN element stays; a NaN update wins
      if (update > element || IsNaNUpdate(update)) element = update;
      return;
    case ScatterReduction::kMin:
      if (update < element || IsNaNUpdate(update)) element = update;
      return;
  }
}

template <typename T>
struct ScatterTag {
  using type = T;
};

// make(ScatterTag<T>{}) for the element type T that `dtype` runs as under
// `reduction`; Unimplemented, naming `op`, when it has none.
template <typename Make>
absl::StatusOr<std::unique_ptr<Kernel>> WithScatterType(DType dtype,
                                                        ScatterReduction reduction,
                                                        const char* op, Make make) {
  if (reduction == ScatterReduction::kNone) {
    switch (DTypeSize(dtype)) {
      case 1:
        return make(ScatterTag<uint8_t>{});
      case 2:
        return make(ScatterTag<uint16_t>{});
      case 4:
        return make(ScatterTag<uint32_t>{});
      default:
        return make(ScatterTag<uint64_t>{});
    }
  }
  switch (dtype) {
    case DType::kFloat32:
      return make(ScatterTag<float>{});
    case DType::kFloat64:
      return make(ScatterTag<double>{});
    case DType::kInt64:
      return make(ScatterTag<int64_t>{});
    case DType::kInt32:
      return make(ScatterTag<int32_t>{});
    default:
      return absl::UnimplementedError(absl::StrCat(
          op, " with a reduction runs in float32, float64, int64 and int32, not ",
          DTypeName(dtype), " (reduction none moves any dtype)"));
  }
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_SCATTER_UPDATE_H_
