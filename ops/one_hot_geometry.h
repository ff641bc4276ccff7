#ifndef SWITCHYARD_OPS_ONE_HOT_GEOMETRY_H_
#define SWITCHYARD_OPS_ONE_HOT_GEOMETRY_H_

// one_hot's rule for an index (ops/one_hot.cc), shared by its kernels: the
// class an index names, or -1 for none (out of [-depth, depth), or a float
// that is not finite). Plain C++.
//
//   OneHotClass(-1, 5) == 4;  OneHotClass(5, 5) == -1;  OneHotClass(2.7f, 5) == 2

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace switchyard {

template <typename T>
int64_t OneHotClass(T index, int64_t depth) {
  if constexpr (std::is_floating_point_v<T>) {
    // Compared before the cast: NaN and huge floats have no int64 value.
    const double truncated = std::trunc(static_cast<double>(index));
    if (!(truncated >= -static_cast<double>(depth) &&
          truncated < static_cast<double>(depth))) {
      return -1;
    }
    const int64_t v = static_cast<int64_t>(truncated);
    return v < 0 ? v + depth : v;
  } else {
    const int64_t v = static_cast<int64_t>(index);
    if (v < -depth || v >= depth) return -1;
    return v < 0 ? v + depth : v;
  }
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ONE_HOT_GEOMETRY_H_
