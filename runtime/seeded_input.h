#ifndef SWITCHYARD_RUNTIME_SEEDED_INPUT_H_
#define SWITCHYARD_RUNTIME_SEEDED_INPUT_H_

// The seeded inputs `switchyard run` and `bench` feed a model when no file
// is given, of whatever dtype the model declares: floating N(0, 1) (float32
// exactly as the command line always drew it), integers uniform in [0, 10)
// (small and non-negative: valid token ids, indices and counts for most
// models), bool 0 or 1.
//
//   std::mt19937_64 rng(seed + 1);
//   HostArray ids = SeededArray(Shape({1, 16}), DType::kInt64, rng);

#include <random>

#include "core/dtype.h"
#include "core/shape.h"
#include "models/host_array.h"

namespace switchyard {
namespace runtime {

HostArray SeededArray(const Shape& shape, DType dtype, std::mt19937_64& rng);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_SEEDED_INPUT_H_
