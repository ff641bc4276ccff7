#include "tools/cli/output_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace cli {
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

std::vector<std::vector<std::pair<int64_t, double>>> TopK(const HostArray& scores,
                                                          int k) {
  std::vector<std::vector<std::pair<int64_t, double>>> result;
  if (scores.shape.rank() != 2 || k < 1) return result;
  const int64_t rows = scores.shape.dim(0);
  const int64_t classes = scores.shape.dim(1);
  if (static_cast<int64_t>(scores.stored_elements()) != rows * classes) return result;
  std::vector<double> row(classes);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < classes; ++c) row[c] = scores.ElementAsDouble(r * classes + c);
    std::vector<int64_t> order(classes);
    std::iota(order.begin(), order.end(), 0);
    const int64_t top = std::min<int64_t>(k, classes);
    std::partial_sort(order.begin(), order.begin() + top, order.end(),
                      [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    std::vector<std::pair<int64_t, double>> best;
    for (int64_t i = 0; i < top; ++i) best.emplace_back(order[i], row[order[i]]);
    result.push_back(std::move(best));
  }
  return result;
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

}  // namespace cli
}  // namespace switchyard
