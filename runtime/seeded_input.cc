#include "runtime/seeded_input.h"

#include <vector>

#include "models/module.h"

namespace switchyard {
namespace runtime {

HostArray SeededArray(const Shape& shape, DType dtype, std::mt19937_64& rng) {
  const int64_t n = shape.num_elements();
  HostArray array(shape, dtype, std::vector<char>(n * DTypeSize(dtype)));
  for (int64_t i = 0; i < n; ++i) {
    double value = 0;
    if (IsFloatingPoint(dtype)) {
      value = NormalSample(rng, 1.0f);
    } else if (dtype == DType::kBool) {
      value = static_cast<double>(rng() & 1);
    } else {
      value = static_cast<double>(rng() % 10);
    }
    SetElementFromDouble(array.bytes.data(), dtype, i, value);
  }
  return array;
}

}  // namespace runtime
}  // namespace switchyard
