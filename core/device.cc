#include "core/device.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

constexpr size_t kMaxTypeLength = 32;

std::string Quoted(absl::string_view text) {
  return absl::StrCat("'", absl::CHexEscape(text), "'");
}

absl::Status BadDevice(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid device ", Quoted(text), ": ", why,
      "; expected 'type' or 'type:index', e.g. 'cpu', 'cuda', 'cuda:1'"));
}

}  // namespace

absl::Status ValidateDeviceType(absl::string_view type) {
  if (type.empty()) return absl::InvalidArgumentError("device type is empty");
  if (type.size() > kMaxTypeLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device type ", Quoted(type), " is longer than ", kMaxTypeLength,
        " characters"));
  }
  if (!absl::ascii_islower(type[0])) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device type ", Quoted(type), " must start with a lowercase letter"));
  }
  for (char c : type) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '_') {
      return absl::InvalidArgumentError(absl::StrCat(
          "device type ", Quoted(type),
          " may contain only lowercase letters, digits and '_'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Device> Device::Create(absl::string_view type, int index) {
  absl::Status type_ok = ValidateDeviceType(type);
  if (!type_ok.ok()) return type_ok;
  if (index < 0 || index > kMaxIndex) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device index ", index, " of type '", type, "' is outside [0, ",
        kMaxIndex, "]"));
  }
  return Device(std::string(type), index);
}

absl::StatusOr<Device> Device::Parse(absl::string_view text) {
  const size_t colon = text.find(':');
  absl::string_view type = text.substr(0, colon);
  absl::Status type_ok = ValidateDeviceType(type);
  if (!type_ok.ok()) {
    std::string hint(type_ok.message());
    if (!type.empty() && absl::AsciiStrToLower(type) != type &&
        ValidateDeviceType(absl::AsciiStrToLower(type)).ok()) {
      absl::StrAppend(&hint, " (did you mean '", absl::AsciiStrToLower(text),
                      "'?)");
    }
    return BadDevice(text, hint);
  }
  if (colon == absl::string_view::npos) return Device(std::string(type), 0);

  absl::string_view digits = text.substr(colon + 1);
  if (digits.empty()) return BadDevice(text, "the index after ':' is missing");
  for (char c : digits) {
    if (!absl::ascii_isdigit(c)) {
      return BadDevice(text, "the index must be a non-negative decimal number");
    }
  }
  if (digits.size() > 1 && digits[0] == '0') {
    return BadDevice(text, "the index has leading zeros");
  }
  if (digits.size() > 4) {
    return BadDevice(text, absl::StrCat("the index is larger than ", kMaxIndex));
  }
  int index = 0;
  for (char c : digits) index = index * 10 + (c - '0');
  if (index > kMaxIndex) {
    return BadDevice(text, absl::StrCat("the index is larger than ", kMaxIndex));
  }
  return Device(std::string(type), index);
}

std::string Device::ToString() const { return absl::StrCat(type_, ":", index_); }

}  // namespace switchyard
