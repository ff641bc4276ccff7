#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "core/device_policy.h"
#include "core/file_transaction.h"
#include "core/plugin_discovery.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "tools/cli/build_info.h"
#include "tools/cli/commands.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"

ABSL_DECLARE_FLAG(std::string, json);  // bench_command.cc

namespace switchyard {
namespace cli {
namespace {

std::string MiB(int64_t bytes) {
  return bytes < 0 ? "?" : absl::StrFormat("%.0f MiB", bytes / 1048576.0);
}

// "  option cpu.threads=2  worker threads ...": what --backend_option sets.
void PrintOptions(const Backend& backend) {
  for (const BackendOption& option : backend.Options()) {
    std::printf("  option %s.%s=%s  %s\n", backend.type().c_str(),
                option.key.c_str(), option.value.c_str(), option.help.c_str());
  }
}

// What the device policies choose here, and the plugins found beside the
// binary, as JSON.
nlohmann::json ChoicesJson(BackendRegistry& registry) {
  nlohmann::json policies = nlohmann::json::object();
  for (const char* name : {"fastest", "cpu", "gpu", "low-power"}) {
    absl::StatusOr<PolicyChoice> c = ChooseDevice(registry, *ParseDevicePolicy(name));
    policies[name] = c.ok() ? nlohmann::json{{"device", c->device.ToString()},
                                             {"threads", c->threads},
                                             {"reason", c->reason}}
                            : nlohmann::json{{"error", std::string(c.status().message())}};
  }
  const PluginDiscovery found = LastPluginDiscovery();
  nlohmann::json loaded = nlohmann::json::array();
  for (const LoadedPlugin& p : found.loaded) {
    loaded.push_back({{"path", p.path}, {"name", p.name}, {"types", p.types}});
  }
  return {{"device_policy", absl::GetFlag(FLAGS_device_policy)},
          {"policies", policies},
          {"plugin_discovery",
           {{"enabled", found.enabled},
            {"folders", found.folders},
            {"loaded", loaded},
            {"skipped", found.skipped}}}};
}

// The default device and the plugins found, after the backends.
void PrintChoices(BackendRegistry& registry) {
  absl::StatusOr<DevicePolicy> policy = ParseDevicePolicy(absl::GetFlag(FLAGS_device_policy));
  absl::StatusOr<PolicyChoice> choice =
      policy.ok() ? ChooseDevice(registry, *policy) : policy.status();
  std::printf("\nDefault device: %s\n",
              choice.ok() ? choice->reason.c_str()
                          : std::string(choice.status().message()).c_str());
  std::printf("  --device names another; --device-policy (%s) chooses another way\n",
              DevicePolicyNames().c_str());
  const PluginDiscovery found = LastPluginDiscovery();
  if (!found.enabled) {
    std::printf("Plugins beside the binary: not searched (%s=off)\n", kPluginDiscoveryEnv);
    return;
  }
  std::vector<std::string> names;
  for (const LoadedPlugin& p : found.loaded) {
    names.push_back(absl::StrCat(p.path, " (", absl::StrJoin(p.types, ", "), ")"));
  }
  std::printf("Plugins beside the binary (%s): %s\n", absl::StrJoin(found.folders, ", ").c_str(),
              names.empty() ? "none" : absl::StrJoin(names, "; ").c_str());
  for (const std::string& skipped : found.skipped) {
    std::printf("  not loaded: %s\n", skipped.c_str());
  }
}

// `devices --json[=FILE]`: the same facts as JSON, on stdout for "-".
absl::Status DevicesJson(BackendRegistry& registry, const std::string& path) {
  nlohmann::json backends = nlohmann::json::array();
  for (const std::string& type : registry.Types()) {
    nlohmann::json entry = {{"type", type}};
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    if (!backend.ok()) {
      entry["available"] = false;
      entry["reason"] = std::string(backend.status().message());
      backends.push_back(entry);
      continue;
    }
    const int count = (*backend)->DeviceCount();
    entry["available"] = count > 0;
    if (count == 0) entry["reason"] = (*backend)->UnavailableReason();
    entry["devices"] = nlohmann::json::array();
    for (int i = 0; i < count; ++i) {
      DeviceInfo info = (*backend)->GetDevice(i).Info();
      nlohmann::json device = {{"device", info.device.ToString()},
                               {"name", info.name},
                               {"free_memory_bytes", info.free_memory_bytes},
                               {"total_memory_bytes", info.total_memory_bytes}};
      for (const auto& [key, value] : info.properties) device["properties"][key] = value;
      entry["devices"].push_back(device);
    }
    entry["options"] = nlohmann::json::object();
    for (const BackendOption& option : (*backend)->Options()) {
      entry["options"][option.key] = {{"value", option.value}, {"help", option.help}};
    }
    backends.push_back(entry);
  }
  nlohmann::json doc = {{"backends", backends},
                        {"default_device", ChoicesJson(registry)},
                        {"build", BuildInfoJson(registry)}};
  if (path == "-") {
    std::printf("%s\n", doc.dump(2).c_str());
    return absl::OkStatus();
  }
  SY_RETURN_IF_ERROR(WriteFileAtomically(path, doc.dump(2) + "\n", "--json"));
  std::printf("wrote %s\n", path.c_str());
  return absl::OkStatus();
}

}  // namespace

absl::Status DevicesCommand(BackendRegistry& registry) {
  if (const std::string json = absl::GetFlag(FLAGS_json); !json.empty()) {
    return DevicesJson(registry, json == "-" ? json : ResolveUserPath(json));
  }
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    if (!backend.ok()) {
      std::printf("%s: unavailable: %s\n", type.c_str(),
                  std::string(backend.status().message()).c_str());
      continue;
    }
    const int count = (*backend)->DeviceCount();
    if (count == 0) {
      std::printf("%s: no devices: %s\n", type.c_str(),
                  (*backend)->UnavailableReason().c_str());
      PrintOptions(**backend);
      continue;
    }
    std::printf("%s: %d device%s\n", type.c_str(), count, count == 1 ? "" : "s");
    for (int i = 0; i < count; ++i) {
      DeviceInfo info = (*backend)->GetDevice(i).Info();
      std::string line = absl::StrCat("  ", info.device.ToString(), "  ", info.name,
                                      "  memory ", MiB(info.free_memory_bytes),
                                      " free / ", MiB(info.total_memory_bytes),
                                      " total");
      for (const auto& [key, value] : info.properties) {
        absl::StrAppend(&line, "  ", key, " ", value);
      }
      std::printf("%s\n", line.c_str());
    }
    PrintOptions(**backend);
  }
  // Upper case, after a blank line: not a backend's "type: ..." line.
  PrintChoices(registry);
  // Several devices or machines: one MPI rank per device.
  std::printf("\nMPI: %s\n", BuildInfoJson(registry)["mpi"].get<std::string>().c_str());
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
