#include "core/device_list.h"

#include <algorithm>

#include "absl/status/status.h"

namespace switchyard {
namespace {

DeviceChoice Choice(BackendRegistry& registry, const Device& device,
                    const std::string& unavailable_name) {
  DeviceChoice choice;
  absl::StatusOr<BackendDevice*> found = registry.GetDevice(device);
  if (found.ok()) {
    choice.name = device.ToString();
    choice.device = device;
  } else {
    choice.name = unavailable_name;
    choice.unavailable_reason = std::string(found.status().message());
  }
  return choice;
}

}  // namespace

std::vector<DeviceChoice> AllDevices(BackendRegistry& registry) {
  std::vector<DeviceChoice> choices;
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    const int count = backend.ok() ? (*backend)->DeviceCount() : 0;
    if (count == 0) {
      absl::StatusOr<Device> first = Device::Create(type, 0);
      if (!first.ok()) {
        choices.push_back({type, std::nullopt, std::string(first.status().message())});
        continue;
      }
      choices.push_back(Choice(registry, *first, type));
      continue;
    }
    for (int i = 0; i < count; ++i) {
      choices.push_back(Choice(registry, (*backend)->GetDevice(i).device(), type));
    }
  }
  return choices;
}

absl::StatusOr<std::vector<DeviceChoice>> ChooseDevices(
    BackendRegistry& registry, absl::Span<const std::string> names) {
  std::vector<DeviceChoice> choices;
  for (const std::string& name : names) {
    absl::StatusOr<Device> device = Device::Parse(name);
    if (!device.ok()) return device.status();
    const std::string canonical = device->ToString();
    if (std::any_of(choices.begin(), choices.end(), [&](const DeviceChoice& c) {
          return c.name == canonical;
        })) {
      continue;
    }
    choices.push_back(Choice(registry, *device, canonical));
  }
  return choices;
}

}  // namespace switchyard
