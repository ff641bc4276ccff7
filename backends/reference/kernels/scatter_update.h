#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_SCATTER_UPDATE_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_SCATTER_UPDATE_H_

// The reference's rule for one scatter update (scatter_elements,
// scatter_nd): none copies the update's bytes (any dtype); add and mul
// compute in double for floats (rounded once to the dtype) and modulo 2^64
// for integers; max and min keep a NaN element and take a NaN update.
// Reductions run in float32, float64, int64 and int32.
//
//   if (!ScatterTakes(dtype, reduction)) ... Unimplemented
//   UpdateElement(reduction, updates, j, out, i);  // out[i] (op)= updates[j]

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/reference/kernels/movement.h"
#include "ops/gather_scatter_attrs.h"

namespace switchyard {
namespace reference {

inline bool ScatterTakes(DType dtype, ScatterReduction reduction) {
  return reduction == ScatterReduction::kNone || dtype == DType::kFloat32 ||
         dtype == DType::kFloat64 || dtype == DType::kInt64 || dtype == DType::kInt32;
}

template <typename T>
T Updated(ScatterReduction reduction, T element, T update) {
  if constexpr (std::is_floating_point_v<T>) {
    const double x = element, u = update;
    switch (reduction) {
      case ScatterReduction::kAdd:
        return static_cast<T>(x + u);
      case ScatterReduction::kMul:
        return static_cast<T>(x * u);
      case ScatterReduction::kMax:
        return std::isnan(x) ? element : (std::isnan(u) || u > x ? update : element);
      case ScatterReduction::kMin:
        return std::isnan(x) ? element : (std::isnan(u) || u < x ? update : element);
      default:
        return update;
    }
  } else {
    const uint64_t x = static_cast<uint64_t>(element), u = static_cast<uint64_t>(update);
    switch (reduction) {
      case ScatterReduction::kAdd:
        return static_cast<T>(x + u);
      case ScatterReduction::kMul:
        return static_cast<T>(x * u);
      case ScatterReduction::kMax:
        return update > element ? update : element;
      case ScatterReduction::kMin:
        return update < element ? update : element;
      default:
        return update;
    }
  }
}

// out[i] (op)= updates[j]; precondition: ScatterTakes(out's dtype, reduction).
inline void UpdateElement(ScatterReduction reduction, const Tensor& updates, int64_t j,
                          Tensor& out, int64_t i) {
  if (reduction == ScatterReduction::kNone) {
    CopyElement(updates, j, out, i);
    return;
  }
  switch (out.dtype()) {
    case DType::kFloat32:
      out.data<float>()[i] = Updated(reduction, out.data<float>()[i], updates.data<float>()[j]);
      return;
    case DType::kFloat64:
      out.data<double>()[i] =
          Updated(reduction, out.data<double>()[i], updates.data<double>()[j]);
      return;
    case DType::kInt64:
      out.data<int64_t>()[i] =
          Updated(reduction, out.data<int64_t>()[i], updates.data<int64_t>()[j]);
      return;
    default:
      out.data<int32_t>()[i] =
          Updated(reduction, out.data<int32_t>()[i], updates.data<int32_t>()[j]);
      return;
  }
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_SCATTER_UPDATE_H_
