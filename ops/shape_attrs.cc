#include "ops/shape_attrs.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace {

std::string List(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

}  // namespace

namespace shape_attrs_internal {

absl::Status CheckNonNegative(absl::string_view name,
                              const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", name, "' must have entries >= 0, got ", List(values),
          name == "shape" ? " (resolve -1 and 0 entries before building the "
                            "node)"
                          : ""));
    }
  }
  return absl::OkStatus();
}

}  // namespace shape_attrs_internal

std::vector<int64_t> SliceAttrs::AxesOrDefault() const {
  if (!axes.empty()) return axes;
  std::vector<int64_t> all(starts.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

std::vector<int64_t> SliceAttrs::StepsOrDefault() const {
  if (!steps.empty()) return steps;
  return std::vector<int64_t>(starts.size(), 1);
}

absl::Status SliceAttrs::CheckLengths(SliceAttrs& a) {
  const size_t n = a.starts.size();
  if (a.ends.size() != n || (!a.axes.empty() && a.axes.size() != n) ||
      (!a.steps.empty() && a.steps.size() != n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attributes 'starts' ", List(a.starts), ", 'ends' ", List(a.ends),
        ", 'axes' ", List(a.axes), " and 'steps' ", List(a.steps),
        " must have the same length (axes and steps may be empty for ONNX's "
        "defaults)"));
  }
  for (int64_t step : a.steps) {
    if (step == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'steps' ", List(a.steps), " has a 0; steps are non-zero"));
    }
  }
  return absl::OkStatus();
}

const char* PadModeName(PadMode mode) {
  switch (mode) {
    case PadMode::kConstant:
      return "constant";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kEdge:
      return "edge";
  }
  return "?";
}

absl::Status PadAttrs::CheckPads(const std::vector<int64_t>& pads) {
  if (pads.size() % 2 == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "attribute 'pads' must have 2 values per dim (all begins, then all "
      "ends), got ",
      pads.size(), ": ", List(pads)));
}

}  // namespace switchyard
