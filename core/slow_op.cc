#include "core/slow_op.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace switchyard {
namespace {

// Longer names would push a table's columns or a verdict off the screen
// (the JSON reports keep them whole).
constexpr size_t kMaxShownName = 100;

}  // namespace

std::string ShortNodeName(const std::string& name) {
  if (name.size() <= kMaxShownName) return name;
  const std::vector<std::string> parts = absl::StrSplit(name, '+');
  if (parts.size() > 2) {
    const std::string both = absl::StrCat(parts.front(), "+...+", parts.back(), " (",
                                          parts.size(), " nodes)");
    if (both.size() <= kMaxShownName) return both;
  }
  return absl::StrCat("...", name.substr(name.size() - (kMaxShownName - 3)));
}

std::string SlowOpAdvice(const std::string& name, const std::string& device) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (absl::StrContains(lower, "nonmaxsuppression") ||
      absl::StrContains(lower, "non_max_suppression") || absl::StrContains(lower, "nms")) {
    return "NMS costs grow with its boxes: keep fewer (torchvision's "
           "box_score_thresh, rpn_pre_nms_top_n_test, detections_per_img before "
           "export) or run it where NMS is fast";
  }
  if (lower == "h2d" || lower == "d2h" || absl::StrContains(lower, " h2d") ||
      absl::StrContains(lower, " d2h") || absl::StrContains(lower, "copy")) {
    return "it is a copy: keep the data on the device between steps, or overlap "
           "copies with compute";
  }
  if (device == "host") {
    return "it runs on the host on this run's data while the device waits: a device "
           "kernel for it, or a model whose shapes are known before it runs, removes "
           "the wait";
  }
  return "another device may run it faster (switchyard bench compares devices), or the "
         "model a smaller layer";
}

}  // namespace switchyard
