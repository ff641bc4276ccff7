// Device queries, as `switchyard devices` prints them and as PyTorch users
// know them from torch.cuda: devices(), backends(), device_count(type),
// is_available(type), get_device_name(device), mem_get_info(device),
// unavailable_reason(type), and backend options (get_option / set_option /
// backend_options).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/device_policy.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/registration.h"
#include "python/status.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

py::object MemoryOrNone(int64_t bytes) {
  return bytes < 0 ? py::none() : py::object(py::int_(bytes));
}

py::dict DeviceDict(const std::string& type, const DeviceInfo& info) {
  py::dict device;
  device["backend"] = type;
  device["device"] = info.device.ToString();
  device["index"] = info.device.index();
  device["available"] = true;
  device["name"] = info.name;
  device["free_memory"] = MemoryOrNone(info.free_memory_bytes);
  device["total_memory"] = MemoryOrNone(info.total_memory_bytes);
  py::dict properties;
  for (const auto& [key, value] : info.properties) properties[py::str(key)] = value;
  device["properties"] = properties;
  device["reason"] = py::none();
  return device;
}

py::dict OptionsDict(const Backend& backend) {
  py::dict options;
  for (const BackendOption& option : backend.Options()) {
    py::dict entry;
    entry["value"] = option.value;
    entry["help"] = option.help;
    options[py::str(option.key)] = entry;
  }
  return options;
}

// One entry per device, and one per backend that has none (with the
// reason), in the order `switchyard devices` prints them.
py::list Devices() {
  BackendRegistry& registry = BackendRegistry::Global();
  py::list out;
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    const int count = backend.ok() ? (*backend)->DeviceCount() : 0;
    if (count == 0) {
      py::dict none;
      none["backend"] = type;
      none["device"] = py::none();
      none["index"] = py::none();
      none["available"] = false;
      none["name"] = py::none();
      none["free_memory"] = py::none();
      none["total_memory"] = py::none();
      none["properties"] = py::dict();
      none["reason"] = backend.ok() ? (*backend)->UnavailableReason()
                                    : std::string(backend.status().message());
      out.append(none);
      continue;
    }
    for (int i = 0; i < count; ++i) {
      out.append(DeviceDict(type, (*backend)->GetDevice(i).Info()));
    }
  }
  return out;
}

// Per backend: its devices, its options, and why it has no device.
py::list Backends() {
  BackendRegistry& registry = BackendRegistry::Global();
  py::list out;
  for (const std::string& type : registry.Types()) {
    py::dict entry;
    entry["type"] = type;
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    py::list devices;
    if (!backend.ok()) {
      entry["available"] = false;
      entry["reason"] = std::string(backend.status().message());
      entry["devices"] = devices;
      entry["options"] = py::dict();
      out.append(entry);
      continue;
    }
    const int count = (*backend)->DeviceCount();
    for (int i = 0; i < count; ++i) {
      devices.append(DeviceDict(type, (*backend)->GetDevice(i).Info()));
    }
    entry["available"] = count > 0;
    entry["reason"] = count > 0 ? py::object(py::none())
                                : py::object(py::str((*backend)->UnavailableReason()));
    entry["devices"] = devices;
    entry["options"] = OptionsDict(**backend);
    out.append(entry);
  }
  return out;
}

// 0 for a backend that could not start or has no device (as
// torch.cuda.device_count() on a machine without a GPU); NotFoundError for a
// type no backend registered.
int DeviceCount(const std::string& type) {
  BackendRegistry& registry = BackendRegistry::Global();
  ThrowIfError(ValidateDeviceType(type));
  absl::StatusOr<Backend*> backend = registry.GetBackend(type);
  if (!backend.ok()) {
    if (backend.status().code() == absl::StatusCode::kNotFound) {
      throw StatusError(backend.status());
    }
    return 0;
  }
  return (*backend)->DeviceCount();
}

std::string UnavailableReason(const std::string& type) {
  BackendRegistry& registry = BackendRegistry::Global();
  ThrowIfError(ValidateDeviceType(type));
  absl::StatusOr<Backend*> backend = registry.GetBackend(type);
  if (!backend.ok()) {
    if (backend.status().code() == absl::StatusCode::kNotFound) {
      throw StatusError(backend.status());
    }
    return std::string(backend.status().message());
  }
  return (*backend)->DeviceCount() > 0 ? "" : (*backend)->UnavailableReason();
}

DeviceInfo InfoOf(const std::string& device) {
  const Device parsed = ValueOrThrow(Device::Parse(device));
  BackendDevice* backend_device =
      ValueOrThrow(BackendRegistry::Global().GetDevice(parsed));
  return backend_device->Info();
}

// "type.key" -> (type, key).
std::pair<std::string, std::string> SplitOptionName(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "option name '", name, "' is not of the form type.key (for example cpu.threads)")));
  }
  return {name.substr(0, dot), name.substr(dot + 1)};
}

}  // namespace

std::string OptionValueString(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  return py::str(value).cast<std::string>();
}

void SetOption(const std::string& name, const py::handle& value) {
  const auto [type, key] = SplitOptionName(name);
  ThrowIfError(BackendRegistry::Global().SetOption(type, key, OptionValueString(value)));
}

void RegisterDevices(py::module_& m) {
  m.def(
      "choose_device",
      [](const std::string& policy) {
        const DevicePolicy parsed = ValueOrThrow(ParseDevicePolicy(policy));
        const PolicyChoice choice =
            ValueOrThrow(ChooseDevice(BackendRegistry::Global(), parsed));
        py::dict d;
        d["device"] = choice.device.ToString();
        d["reason"] = choice.reason;
        d["threads"] = choice.threads;
        return d;
      },
      py::arg("policy") = "fastest",
      "The device a Session takes without device=: {device, reason, threads} "
      "for policy \"fastest\" (a GPU, else oneDNN, else the Eigen backend), "
      "\"cpu\" (never a GPU), \"gpu\" or \"low-power\" (one thread). "
      "Raises InvalidArgumentError for another policy.");
  m.def("devices", &Devices,
        "Every device of every backend (name, free and total memory in bytes, "
        "properties), and every backend that has none with the reason: the facts "
        "`switchyard devices` prints, as a list of dicts.");
  m.def("backends", &Backends,
        "Per backend: available, reason (when it has no device), devices, and "
        "options {key: {value, help}}.");
  m.def("device_count", &DeviceCount, py::arg("type") = "cuda",
        "Devices of backend `type` ('cpu', 'cuda', a plugin's type); 0 when the "
        "backend has none or could not start.");
  m.def("is_available", [](const std::string& type) { return DeviceCount(type) > 0; },
        py::arg("type") = "cuda", "Whether backend `type` has at least one device.");
  m.def("unavailable_reason", &UnavailableReason, py::arg("type"),
        "Why backend `type` has no device ('' when it has one).");
  m.def("get_device_name",
        [](const std::string& device) { return InfoOf(device).name; },
        py::arg("device") = "cpu:0", "The device's name, e.g. 'Intel Xeon (2 threads)'.");
  m.def("get_device_properties",
        [](const std::string& device) {
          const DeviceInfo info = InfoOf(device);
          std::string type = info.device.type();
          return DeviceDict(type, info);
        },
        py::arg("device") = "cpu:0", "One device's entry of devices().");
  m.def("mem_get_info",
        [](const std::string& device) {
          const DeviceInfo info = InfoOf(device);
          return py::make_tuple(MemoryOrNone(info.free_memory_bytes),
                                MemoryOrNone(info.total_memory_bytes));
        },
        py::arg("device") = "cpu:0",
        "(free, total) memory of the device in bytes, as torch.cuda.mem_get_info; "
        "None where the backend does not know.");
  m.def("get_option",
        [](const std::string& name) {
          const auto [type, key] = SplitOptionName(name);
          return ValueOrThrow(BackendRegistry::Global().GetOption(type, key));
        },
        py::arg("name"), "The current value of backend option 'type.key' (a string).");
  m.def("set_option", &SetOption, py::arg("name"), py::arg("value"),
        "Sets backend option 'type.key' (e.g. set_option('cpu.threads', 2)); it "
        "applies to kernels created afterwards, process-wide.");
  m.def("backend_options",
        [](const std::string& type) {
          Backend* backend = ValueOrThrow(BackendRegistry::Global().GetBackend(type));
          return OptionsDict(*backend);
        },
        py::arg("type"), "Backend `type`'s options: {key: {value, help}}.");
}

}  // namespace python
}  // namespace switchyard
