#ifndef SWITCHYARD_RUNTIME_OUTPUT_SUMMARY_H_
#define SWITCHYARD_RUNTIME_OUTPUT_SUMMARY_H_

// What `switchyard run` prints about each output: the top-5 per sample for
// outputs that look like class scores, a short summary for every other one
// (any rank, scalars and empty outputs included).
//
//   HostArray y = ...;  // an output copied to the host
//   if (LooksLikeClassScores(y.shape, y.dtype)) {
//     for (const auto& sample : TopK(y, 5)) ...
//   } else {
//     std::printf("%s\n", SummaryLine("y", y).c_str());
//     // "y [] int64: value 60"
//   }

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "models/host_array.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace runtime {

// [N, C] with N >= 1 and C > 1, of a floating dtype: a classifier's logits
// or probabilities.
bool LooksLikeClassScores(const Shape& shape, DType dtype);

// Per sample (row) of an [N, C] array, the `k` largest values as (class,
// value), best first. Empty unless the array is rank 2.
std::vector<std::vector<std::pair<int64_t, double>>> TopK(const HostArray& scores,
                                                          int k);

// The same for row `row` alone (empty when there is no such row).
std::vector<std::pair<int64_t, double>> TopKOfRow(const HostArray& scores, int64_t row,
                                                  int k);

// Row `row`'s top-5 with softmax probabilities over the row, as printed
// ("  281 0.6100 (12.1000) tabby  285 ...": class, probability, raw value,
// the class's name where `labels` has one) and as the report's JSON
// ([{"class", "value", "probability", "label"}, ...]).
struct Top5 {
  std::string text;
  nlohmann::json json;
};
Top5 FormatTop5(const HostArray& scores, int64_t row, const std::vector<std::string>& labels);

// "name [2, 3] int64: min 0, max 9, first values 3, 0, 9, 2, 7, 1 (of 6)";
// a scalar: "name [] int64: value 60"; no elements: "name [0, 4] float32:
// empty". `name` may be empty (then the line starts with the shape).
std::string SummaryLine(const std::string& name, const HostArray& array);

// The same facts as JSON: {"shape", "dtype", "elements", "min", "max",
// "first_values"} (min/max absent when empty; NaN is null).
nlohmann::json SummaryJson(const HostArray& array);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_OUTPUT_SUMMARY_H_
