// libFuzzer target for device strings (core/device.h).
//
// Device::Parse must accept exactly the documented spelling ("type" or
// "type:index", type [a-z][a-z0-9_]{0,31}, index 0..kMaxIndex without sign
// or leading zeros) and return InvalidArgument for anything else, without
// crashing. Accepted devices round-trip through their canonical spelling,
// and Create agrees with Parse.
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:device_fuzzer_replay_test (corpus replay).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/device.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool IsTypeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// The documented grammar, written independently of device.cc.
bool ShouldAccept(absl::string_view text) {
  const size_t colon = text.find(':');
  const absl::string_view type = text.substr(0, colon);
  if (type.empty() || type.size() > 32 || !(type[0] >= 'a' && type[0] <= 'z')) {
    return false;
  }
  for (char c : type) {
    if (!IsTypeChar(c)) return false;
  }
  if (colon == absl::string_view::npos) return true;
  const absl::string_view digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 4) return false;
  if (digits.size() > 1 && digits[0] == '0') return false;
  int index = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + (c - '0');
  }
  return index <= switchyard::Device::kMaxIndex;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<switchyard::Device> device = switchyard::Device::Parse(text);
  FUZZ_CHECK(device.ok() == ShouldAccept(text));
  if (!device.ok()) {
    FUZZ_CHECK(device.status().code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  const std::string canonical = device->ToString();
  absl::StatusOr<switchyard::Device> again =
      switchyard::Device::Parse(canonical);
  FUZZ_CHECK(again.ok() && *again == *device);
  FUZZ_CHECK(again->ToString() == canonical);
  absl::StatusOr<switchyard::Device> created =
      switchyard::Device::Create(device->type(), device->index());
  FUZZ_CHECK(created.ok() && *created == *device);
  FUZZ_CHECK(switchyard::ValidateDeviceType(device->type()).ok());
  return 0;
}
