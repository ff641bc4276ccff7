#include "core/device_policy.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace {

struct Ranked {
  const char* type;
  bool gpu;
  const char* what;  // for the reason line
};

// Fastest first.
constexpr Ranked kRanking[] = {
    {"cuda", true, "the GPU"},
    {"dnnl", false, "oneDNN, the fastest CPU backend"},
    {"cpu", false, "the Eigen CPU backend"},
};

bool Registered(const BackendRegistry& registry, const std::string& type) {
  const std::vector<std::string> types = registry.Types();
  return std::find(types.begin(), types.end(), type) != types.end();
}

// Why `type` has no device to offer, in a few words (`switchyard devices`
// and devices() give the backend's whole reason).
std::string Absence(BackendRegistry& registry, const std::string& type) {
  // Not registered: neither linked in nor loaded as a plugin (dnnl comes
  // only as one; discovery may be off or may not have found it).
  if (!Registered(registry, type)) return absl::StrCat(type, " (not loaded)");
  absl::StatusOr<Backend*> backend = registry.GetBackend(type);
  if (!backend.ok()) return absl::StrCat(type, " (did not start)");
  return absl::StrCat(type, " (no device)");
}

bool HasDevice(BackendRegistry& registry, const std::string& type) {
  if (!Registered(registry, type)) return false;
  absl::StatusOr<Backend*> backend = registry.GetBackend(type);
  return backend.ok() && (*backend)->DeviceCount() > 0;
}

}  // namespace

absl::StatusOr<DevicePolicy> ParseDevicePolicy(absl::string_view name) {
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "fastest") return DevicePolicy::kFastest;
  if (n == "cpu") return DevicePolicy::kPreferCpu;
  if (n == "gpu") return DevicePolicy::kPreferGpu;
  if (n == "low-power" || n == "low_power") return DevicePolicy::kLowPower;
  return absl::InvalidArgumentError(absl::StrCat("unknown device policy '", name,
                                                 "'; the policies are ", DevicePolicyNames()));
}

std::string DevicePolicyName(DevicePolicy policy) {
  switch (policy) {
    case DevicePolicy::kFastest: return "fastest";
    case DevicePolicy::kPreferCpu: return "cpu";
    case DevicePolicy::kPreferGpu: return "gpu";
    case DevicePolicy::kLowPower: return "low-power";
  }
  return "fastest";
}

std::string DevicePolicyNames() { return "fastest, cpu, gpu, low-power"; }

absl::StatusOr<PolicyChoice> ChooseDevice(BackendRegistry& registry, DevicePolicy policy) {
  const bool gpus_allowed =
      policy == DevicePolicy::kFastest || policy == DevicePolicy::kPreferGpu;
  std::vector<std::string> passed_over;
  for (const Ranked& r : kRanking) {
    if (r.gpu && !gpus_allowed) continue;
    if (!HasDevice(registry, r.type)) {
      passed_over.push_back(Absence(registry, r.type));
      continue;
    }
    absl::StatusOr<Device> device = Device::Create(r.type, 0);
    if (!device.ok()) return device.status();
    PolicyChoice choice;
    choice.device = *device;
    choice.reason = absl::StrCat(choice.device.ToString(), ", ", r.what, " (device policy ",
                                 DevicePolicyName(policy), ")");
    if (policy == DevicePolicy::kLowPower) {
      choice.threads = 1;
      absl::StrAppend(&choice.reason, " on one thread");
    }
    if (!passed_over.empty()) {
      absl::StrAppend(&choice.reason, "; passed over ", absl::StrJoin(passed_over, ", "));
    }
    return choice;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no device for device policy ", DevicePolicyName(policy), ": ",
                   absl::StrJoin(passed_over, ", "), "; name one with --device"));
}

}  // namespace switchyard
