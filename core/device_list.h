#ifndef SWITCHYARD_CORE_DEVICE_LIST_H_
#define SWITCHYARD_CORE_DEVICE_LIST_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/device.h"

namespace switchyard {

// A device to measure, or a name that has no device behind it and why: what
// benchmarks list so that a missing device is shown, never silently skipped.
struct DeviceChoice {
  std::string name;            // "cpu:0"; a bare type ("cuda") when it has no device
  std::optional<Device> device;  // set when available
  std::string unavailable_reason;  // set when not (the registry's message)
  bool available() const { return device.has_value(); }
};

// Every device of every registered backend, in type order. A type with no
// device, or whose backend failed to start, appears once under its type name
// with the registry's reason (registry.GetDevice(type:0).status().message()).
//
//   for (const DeviceChoice& d : AllDevices(BackendRegistry::Global())) ...
std::vector<DeviceChoice> AllDevices(BackendRegistry& registry);

// The devices `names` stand for ("cpu" = "cpu:0", "cuda:1"), in order, without
// duplicates. InvalidArgument for a malformed name; a well-formed name without
// a device (unknown type, missing index) comes back unavailable, with why.
absl::StatusOr<std::vector<DeviceChoice>> ChooseDevices(
    BackendRegistry& registry, absl::Span<const std::string> names);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DEVICE_LIST_H_
