#ifndef SWITCHYARD_BACKENDS_TESTING_RANDOM_VALUES_H_
#define SWITCHYARD_BACKENDS_TESTING_RANDOM_VALUES_H_

// Reproducible test inputs for backend tests: the same seed gives the same
// values on every machine (std::mt19937 is specified to the bit), so a
// failure replays.
//
//   Tensor::FromVector(shape, RandomValues(shape.num_elements(), 7), device);

#include <cstdint>
#include <random>
#include <vector>

namespace switchyard {
namespace testing {

// `n` floats uniform in [-scale, scale).
inline std::vector<float> RandomValues(int64_t n, uint64_t seed,
                                       float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace testing
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_TESTING_RANDOM_VALUES_H_
