#ifndef SWITCHYARD_TESTS_RELATIVE_DIFF_H_
#define SWITCHYARD_TESTS_RELATIVE_DIFF_H_

// How the model tests compare a run with a reference framework's output:
// max |got - want| / max |want| over every element (the limit is 1e-4).

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/host_array.h"

namespace switchyard {

inline double RelativeDiff(const HostArray& got, const HostArray& want) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double w = want.ElementAsDouble(i);
    diff = std::max(diff, std::abs(got.ElementAsDouble(i) - w));
    scale = std::max(scale, std::abs(w));
  }
  return diff / scale;
}

}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_RELATIVE_DIFF_H_
