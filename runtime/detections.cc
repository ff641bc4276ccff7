#include "runtime/detections.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace switchyard {
namespace runtime {
namespace {

bool IsBoxes(const HostArray& a) {
  return IsFloatingPoint(a.dtype) && a.shape.rank() == 2 && a.shape.dim(1) == 4;
}
bool IsLabels(const HostArray& a, int64_t k) {
  return !IsFloatingPoint(a.dtype) && a.dtype != DType::kBool && a.shape.rank() == 1 &&
         a.shape.dim(0) == k;
}
bool IsScores(const HostArray& a, int64_t k) {
  return IsFloatingPoint(a.dtype) && a.shape.rank() == 1 && a.shape.dim(0) == k;
}

std::string ClassName(int64_t c, const std::vector<std::string>& labels) {
  if (c >= 0 && c < static_cast<int64_t>(labels.size())) {
    return absl::StrCat(labels[c], " (class ", c, ")");
  }
  return absl::StrCat("class ", c);
}

}  // namespace

std::optional<DetectionOutputs> FindDetections(const std::vector<HostArray>& outputs,
                                               const std::vector<std::string>& names) {
  auto named = [&](const char* name) -> std::optional<size_t> {
    for (size_t i = 0; i < outputs.size() && i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    return std::nullopt;
  };
  std::optional<size_t> boxes = named("boxes"), labels = named("labels"),
                        scores = named("scores");
  if (!boxes.has_value()) {
    for (size_t i = 0; i < outputs.size() && !boxes.has_value(); ++i) {
      if (IsBoxes(outputs[i])) boxes = i;
    }
  }
  if (!boxes.has_value() || !IsBoxes(outputs[*boxes])) return std::nullopt;
  const int64_t k = outputs[*boxes].shape.dim(0);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!labels.has_value() && i != *boxes && IsLabels(outputs[i], k)) labels = i;
    if (!scores.has_value() && i != *boxes && IsScores(outputs[i], k)) scores = i;
  }
  if (!labels.has_value() || !scores.has_value() || !IsLabels(outputs[*labels], k) ||
      !IsScores(outputs[*scores], k)) {
    return std::nullopt;
  }
  return DetectionOutputs{*boxes, *labels, *scores};
}

std::string FormatDetections(const std::vector<HostArray>& outputs, const DetectionOutputs& d,
                             const std::vector<std::string>& labels, int top) {
  const HostArray& boxes = outputs[d.boxes];
  const HostArray& classes = outputs[d.labels];
  const HostArray& scores = outputs[d.scores];
  const int64_t k = boxes.shape.dim(0);
  std::vector<int64_t> order(static_cast<size_t>(k));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return scores.ElementAsDouble(a) > scores.ElementAsDouble(b);
  });
  const int64_t shown = top > 0 ? std::min<int64_t>(top, k) : k;
  std::string text = absl::StrCat("detections: ", k);
  if (shown < k) absl::StrAppend(&text, " (the ", shown, " best by score)");
  absl::StrAppend(&text, "\n");
  for (int64_t r = 0; r < shown; ++r) {
    const int64_t i = order[r];
    absl::StrAppendFormat(
        &text, "  %d. %s  score %.3f  box (%.1f, %.1f, %.1f, %.1f)\n", r + 1,
        ClassName(static_cast<int64_t>(classes.ElementAsDouble(i)), labels),
        scores.ElementAsDouble(i), boxes.ElementAsDouble(4 * i), boxes.ElementAsDouble(4 * i + 1),
        boxes.ElementAsDouble(4 * i + 2), boxes.ElementAsDouble(4 * i + 3));
  }
  return text;
}

nlohmann::json DetectionsJson(const std::vector<HostArray>& outputs, const DetectionOutputs& d,
                              const std::vector<std::string>& labels) {
  nlohmann::json all = nlohmann::json::array();
  const HostArray& boxes = outputs[d.boxes];
  for (int64_t i = 0; i < boxes.shape.dim(0); ++i) {
    const int64_t c = static_cast<int64_t>(outputs[d.labels].ElementAsDouble(i));
    nlohmann::json one = {
        {"box",
         {boxes.ElementAsDouble(4 * i), boxes.ElementAsDouble(4 * i + 1),
          boxes.ElementAsDouble(4 * i + 2), boxes.ElementAsDouble(4 * i + 3)}},
        {"class", c},
        {"score", outputs[d.scores].ElementAsDouble(i)}};
    if (c >= 0 && c < static_cast<int64_t>(labels.size())) one["label"] = labels[c];
    all.push_back(std::move(one));
  }
  return all;
}

}  // namespace runtime
}  // namespace switchyard
