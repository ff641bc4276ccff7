#ifndef SWITCHYARD_CORE_DEVICE_H_
#define SWITCHYARD_CORE_DEVICE_H_

#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {

// Where a tensor lives or an op runs: a device type name plus an ordinal,
// a small value type in the spirit of c10::Device. The set of types is open:
// a backend plugin brings its own type name and core never lists them, so
// there are no is_cuda()-style predicates.
//
// The one canonical spelling is "type:index" ("cpu:0", "cuda:1"); Parse also
// accepts a bare type ("cuda") as index 0.
//
//   absl::StatusOr<Device> d = Device::Parse("cuda:1");
//   d->type() == "cuda"; d->index() == 1; d->ToString() == "cuda:1"
class Device {
 public:
  // Largest ordinal Parse accepts; guards against absurd inputs.
  static constexpr int kMaxIndex = 1023;

  // The host CPU, "cpu:0".
  static Device Cpu() { return Device("cpu", 0); }

  // Parses "type" or "type:index". The type is a lowercase identifier
  // ([a-z][a-z0-9_]*, at most 32 characters); the index is a decimal
  // number without sign or leading zeros, at most kMaxIndex.
  static absl::StatusOr<Device> Parse(absl::string_view text);

  // Same rules as Parse for the parts; for code that already has them.
  static absl::StatusOr<Device> Create(absl::string_view type, int index);

  const std::string& type() const { return type_; }
  int index() const { return index_; }
  std::string ToString() const;

  friend bool operator==(const Device& a, const Device& b) {
    return a.index_ == b.index_ && a.type_ == b.type_;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
  friend bool operator<(const Device& a, const Device& b) {
    return std::tie(a.type_, a.index_) < std::tie(b.type_, b.index_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const Device& d) {
    return H::combine(std::move(h), d.type_, d.index_);
  }
  // Abseil 20220623 predates AbslStringify; gtest and logs use <<.
  friend std::ostream& operator<<(std::ostream& os, const Device& d) {
    return os << d.ToString();
  }

 private:
  Device(std::string type, int index) : type_(std::move(type)), index_(index) {}

  std::string type_;
  int index_;
};

// Checks a device type name on its own (used by backend registration).
absl::Status ValidateDeviceType(absl::string_view type);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DEVICE_H_
