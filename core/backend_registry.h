#ifndef SWITCHYARD_CORE_BACKEND_REGISTRY_H_
#define SWITCHYARD_CORE_BACKEND_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/backend.h"
#include "core/device.h"

namespace switchyard {

// Maps device type names to backends. Backends register a factory; the
// backend is created on first use, so a backend whose device is missing
// costs nothing until asked for, and its failure is reported, not fatal.
//
// Global() is what static registrars fill; tests construct their own, empty
// registry and inject it wherever a registry is taken.
//
//   BackendRegistry registry;
//   registry.Register("ref", [] { return MakeRefBackend(); });
//   absl::StatusOr<BackendDevice*> d = registry.GetDevice(*Device::Parse("ref:1"));
class BackendRegistry {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Backend>>()>;

  BackendRegistry() = default;
  BackendRegistry(const BackendRegistry&) = delete;
  BackendRegistry& operator=(const BackendRegistry&) = delete;

  // The process-wide registry that linked-in backends register into.
  static BackendRegistry& Global();

  // AlreadyExists if `type` is taken; InvalidArgument for a bad type name.
  absl::Status Register(const std::string& type, Factory factory);

  // Registered type names, sorted.
  std::vector<std::string> Types() const;

  // NotFound (listing the registered types) for an unknown type; the
  // factory's error, as Unavailable, when the backend could not start.
  absl::StatusOr<Backend*> GetBackend(absl::string_view type);

  // Unavailable, with the backend's reason and its device count, when the
  // device index does not exist.
  absl::StatusOr<BackendDevice*> GetDevice(const Device& device);

  // Every device of every backend that could start, in type order.
  std::vector<Device> AvailableDevices();

  // Sets option `key` of backend `type` (Backend::SetOption); errors name
  // the backend, the key and the accepted keys.
  absl::Status SetOption(absl::string_view type, const std::string& key,
                         const std::string& value);
  // The same from "type.key=value" ("cpu.threads=2"), as the command line's
  // --backend_option takes it.
  absl::Status SetOption(absl::string_view spec);
  // The current value of option `key` of backend `type`.
  absl::StatusOr<std::string> GetOption(absl::string_view type,
                                        absl::string_view key);

 private:
  struct Entry {
    Factory factory;
    bool created = false;
    std::unique_ptr<Backend> backend;
    absl::Status creation_error;
  };

  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

// For a backend's own .cc file:
//   static const bool kRegistered = RegisterBackend("cpu", &CreateCpuBackend);
// A bool is trivially destructible, so there is no exit-time destructor; the
// library must be `alwayslink = True` or the linker drops the registration.
bool RegisterBackend(const std::string& type, BackendRegistry::Factory factory);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_BACKEND_REGISTRY_H_
