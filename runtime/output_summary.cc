#include "runtime/output_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace runtime {
namespace {

constexpr int64_t kFirstValues = 6;

// Integers and bools as integers, floating values with 6 significant digits.
std::string FormatValue(double value, DType dtype) {
  if (!IsFloatingPoint(dtype) && std::isfinite(value)) {
    return absl::StrFormat("%.0f", value);
  }
  return absl::StrFormat("%.6g", value);
}

nlohmann::json JsonValue(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return nullptr;
  return value > 0 ? "inf" : "-inf";
}

struct Range {
  double min = 0, max = 0;
  bool any = false;  // a finite value was seen, or only NaN
};

// min and max over the non-NaN values (all NaN: NaN).
Range MinMax(const HostArray& array) {
  Range range;
  const int64_t n = static_cast<int64_t>(array.stored_elements());
  range.min = range.max = NAN;
  for (int64_t i = 0; i < n; ++i) {
    const double v = array.ElementAsDouble(i);
    if (std::isnan(v)) continue;
    if (!range.any) {
      range.min = range.max = v;
      range.any = true;
    }
    range.min = std::min(range.min, v);
    range.max = std::max(range.max, v);
  }
  return range;
}

}  // namespace

bool LooksLikeClassScores(const Shape& shape, DType dtype) {
  return IsFloatingPoint(dtype) && shape.rank() == 2 && shape.dim(0) >= 1 &&
         shape.dim(1) > 1;
}

std::vector<std::pair<int64_t, double>> TopKOfRow(const HostArray& scores, int64_t row,
                                                  int k) {
  std::vector<std::pair<int64_t, double>> best;
  if (scores.shape.rank() != 2 || k < 1 || row < 0 || row >= scores.shape.dim(0)) return best;
  const int64_t classes = scores.shape.dim(1);
  if (static_cast<int64_t>(scores.stored_elements()) != scores.shape.dim(0) * classes) {
    return best;
  }
  std::vector<double> values(classes);
  for (int64_t c = 0; c < classes; ++c) values[c] = scores.ElementAsDouble(row * classes + c);
  std::vector<int64_t> order(classes);
  std::iota(order.begin(), order.end(), 0);
  const int64_t top = std::min<int64_t>(k, classes);
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](int64_t a, int64_t b) { return values[a] > values[b]; });
  for (int64_t i = 0; i < top; ++i) best.emplace_back(order[i], values[order[i]]);
  return best;
}

std::vector<std::vector<std::pair<int64_t, double>>> TopK(const HostArray& scores,
                                                          int k) {
  std::vector<std::vector<std::pair<int64_t, double>>> result;
  if (scores.shape.rank() != 2 || k < 1) return result;
  const int64_t rows = scores.shape.dim(0);
  if (static_cast<int64_t>(scores.stored_elements()) != rows * scores.shape.dim(1)) {
    return result;
  }
  for (int64_t r = 0; r < rows; ++r) result.push_back(TopKOfRow(scores, r, k));
  return result;
}

Top5 FormatTop5(const HostArray& scores, int64_t row, const std::vector<std::string>& labels) {
  Top5 top5;
  top5.json = nlohmann::json::array();
  if (scores.shape.rank() != 2) return top5;
  const int64_t classes = scores.shape.dim(1);
  // Softmax over the row, computed stably (max subtracted).
  double max = -INFINITY, sum = 0;
  for (int64_t c = 0; c < classes; ++c) {
    max = std::max(max, scores.ElementAsDouble(row * classes + c));
  }
  for (int64_t c = 0; c < classes; ++c) {
    sum += std::exp(scores.ElementAsDouble(row * classes + c) - max);
  }
  for (const auto& [cls, value] : TopKOfRow(scores, row, 5)) {
    const double probability = std::exp(value - max) / sum;
    absl::StrAppendFormat(&top5.text, "  %d %.4f (%.4f)", cls, probability, value);
    nlohmann::json entry = {{"class", cls}, {"value", static_cast<float>(value)},
                            {"probability", std::isfinite(probability) ? probability : 0.0}};
    if (cls < static_cast<int64_t>(labels.size())) {
      absl::StrAppend(&top5.text, " ", labels[cls]);
      entry["label"] = labels[cls];
    }
    top5.json.push_back(std::move(entry));
  }
  return top5;
}

std::string SummaryLine(const std::string& name, const HostArray& array) {
  std::string line = absl::StrCat(name, name.empty() ? "" : " ",
                                  array.shape.ToString(), " ", DTypeName(array.dtype), ": ");
  const int64_t n = static_cast<int64_t>(array.stored_elements());
  if (n == 0) return absl::StrCat(line, "empty");
  if (array.shape.rank() == 0 || n == 1) {
    return absl::StrCat(line, "value ", FormatValue(array.ElementAsDouble(0), array.dtype));
  }
  const Range range = MinMax(array);
  std::vector<std::string> first;
  for (int64_t i = 0; i < std::min(n, kFirstValues); ++i) {
    first.push_back(FormatValue(array.ElementAsDouble(i), array.dtype));
  }
  absl::StrAppend(&line, "min ", FormatValue(range.min, array.dtype), ", max ",
                  FormatValue(range.max, array.dtype), ", first values ",
                  absl::StrJoin(first, ", "), n > kFirstValues ? absl::StrCat(" (of ", n, ")") : "");
  return line;
}

nlohmann::json SummaryJson(const HostArray& array) {
  nlohmann::json json = {{"shape", array.shape.dims()},
                         {"dtype", DTypeName(array.dtype)},
                         {"elements", array.stored_elements()}};
  const int64_t n = static_cast<int64_t>(array.stored_elements());
  nlohmann::json first = nlohmann::json::array();
  for (int64_t i = 0; i < std::min(n, kFirstValues); ++i) {
    first.push_back(JsonValue(array.ElementAsDouble(i)));
  }
  json["first_values"] = first;
  if (n > 0) {
    const Range range = MinMax(array);
    json["min"] = JsonValue(range.min);
    json["max"] = JsonValue(range.max);
  }
  return json;
}

}  // namespace runtime
}  // namespace switchyard
