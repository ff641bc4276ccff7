#include "core/placement_hints.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace switchyard {
namespace {

// The text between `before` and the next `after` in `text`, from `from`.
std::optional<std::string> Between(absl::string_view text, absl::string_view before,
                                   absl::string_view after) {
  const size_t start = text.find(before);
  if (start == absl::string_view::npos) return std::nullopt;
  const size_t begin = start + before.size();
  const size_t end = text.find(after, begin);
  if (end == absl::string_view::npos) return std::nullopt;
  return std::string(text.substr(begin, end - begin));
}

}  // namespace

// The strict placement pass (core/passes/strict_placement.cc) writes
// "... has operands on different devices: ... Fix: move the input to the
// model's device (x.To("M")), or the model to the input's device
// (model.To("D")), ..."; tests/placement_test.cc holds the two together.
std::optional<MixedDevices> ParseMixedDevices(const absl::Status& status) {
  const absl::string_view message = status.message();
  if (!absl::StrContains(message, "has operands on different devices")) return std::nullopt;
  MixedDevices mixed;
  std::optional<std::string> model = Between(message, "(x.To(\"", "\")");
  std::optional<std::string> data = Between(message, "(model.To(\"", "\")");
  if (model && data) {
    mixed.model_device = *model;
    mixed.data_device = *data;
  }
  return mixed;
}

std::string WithoutFix(const absl::Status& status) {
  const absl::string_view message = status.message();
  const size_t fix = message.find("\nFix: ");
  return std::string(fix == absl::string_view::npos ? message : message.substr(0, fix));
}

// Lowering writes "node 'n' (op o, layer 'l') on D: <the backend's reason>"
// (core/lowering.cc, WithNode) when D cannot run the node.
bool IsUnsupportedOnDevice(const absl::Status& status, const std::string& device) {
  if (status.ok() || device.empty()) return false;
  const absl::string_view message = status.message();
  return absl::StrContains(message, absl::StrCat(") on ", device, ": ")) &&
         !absl::StrContains(message, "has operands on different devices");
}

}  // namespace switchyard
