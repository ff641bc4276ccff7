#include "core/backend_registry.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

BackendRegistry& BackendRegistry::Global() {
  // Never destroyed: backends may be used from other static destructors.
  static BackendRegistry* registry = new BackendRegistry();
  return *registry;
}

absl::Status BackendRegistry::Register(const std::string& type,
                                       Factory factory) {
  absl::Status valid = ValidateDeviceType(type);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot register backend: ", valid.message()));
  }
  absl::MutexLock lock(&mu_);
  if (entries_.count(type) > 0) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a backend for device type '", type,
        "' is already registered; each type name can be registered once"));
  }
  entries_[type].factory = std::move(factory);
  return absl::OkStatus();
}

std::vector<std::string> BackendRegistry::Types() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> types;
  for (const auto& [type, entry] : entries_) types.push_back(type);
  return types;
}

absl::StatusOr<Backend*> BackendRegistry::GetBackend(absl::string_view type) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(std::string(type));
  if (it == entries_.end()) {
    std::vector<std::string> types;
    for (const auto& [name, entry] : entries_) types.push_back(name);
    return absl::NotFoundError(absl::StrCat(
        "no backend is registered for device type '", type,
        "'; registered types: [", absl::StrJoin(types, ", "),
        "]. Link the backend's library into the binary (or load its plugin)"));
  }
  Entry& entry = it->second;
  if (!entry.created) {
    entry.created = true;
    absl::StatusOr<std::unique_ptr<Backend>> backend = entry.factory();
    if (backend.ok() && *backend == nullptr) {
      backend = absl::InternalError("the backend factory returned null");
    }
    if (backend.ok()) {
      entry.backend = std::move(*backend);
    } else {
      entry.creation_error = backend.status();
    }
  }
  if (entry.backend == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "backend '", type, "' failed to start: ",
        entry.creation_error.message()));
  }
  return entry.backend.get();
}

absl::StatusOr<BackendDevice*> BackendRegistry::GetDevice(
    const Device& device) {
  absl::StatusOr<Backend*> backend = GetBackend(device.type());
  if (!backend.ok()) return backend.status();
  const int count = (*backend)->DeviceCount();
  if (device.index() >= count) {
    std::string why = (*backend)->UnavailableReason();
    return absl::UnavailableError(absl::StrCat(
        "device ", device.ToString(), " is not available: backend '",
        device.type(), "' has ", count, " device", count == 1 ? "" : "s",
        why.empty() ? "" : absl::StrCat(" (", why, ")"),
        count == 1 ? absl::StrCat("; use ", device.type(), ":0") : "",
        count > 1 ? absl::StrCat("; use ", device.type(), ":0 to ",
                                 device.type(), ":", count - 1)
                  : ""));
  }
  return &(*backend)->GetDevice(device.index());
}

std::vector<Device> BackendRegistry::AvailableDevices() {
  std::vector<Device> devices;
  for (const std::string& type : Types()) {
    absl::StatusOr<Backend*> backend = GetBackend(type);
    if (!backend.ok()) continue;
    for (int i = 0; i < (*backend)->DeviceCount(); ++i) {
      devices.push_back((*backend)->GetDevice(i).device());
    }
  }
  return devices;
}

bool RegisterBackend(const std::string& type,
                     BackendRegistry::Factory factory) {
  absl::Status status =
      BackendRegistry::Global().Register(type, std::move(factory));
  if (!status.ok()) {
    // Static initialization has no caller to return to; say it loudly.
    std::fprintf(stderr, "switchyard: %s\n", status.ToString().c_str());
    return false;
  }
  return true;
}

}  // namespace switchyard
