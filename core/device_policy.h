#ifndef SWITCHYARD_CORE_DEVICE_POLICY_H_
#define SWITCHYARD_CORE_DEVICE_POLICY_H_

// Which device a model runs on when the user names none: a policy over the
// devices the registry has (ONNX Runtime 1.22's execution-provider policies,
// in Switchyard's words). The preference is fixed, by backend type, from
// what docs/benchmarks.md measured (docs/placement.md says why):
//
//   cuda  a GPU                       chosen first by fastest and gpu
//   dnnl  oneDNN on the CPU           0.6-1.0x ONNX Runtime's time
//   cpu   the Eigen backend           1.1-4.9x; runs every op
//
// A type the table does not know (another plugin, the reference backend)
// is never chosen by a policy: name it with --device. Whatever the policy
// picks, the nodes it cannot run fall back to cpu:0 (auto placement).
//
//   absl::StatusOr<PolicyChoice> c = ChooseDevice(registry, DevicePolicy::kFastest);
//   c->device == dnnl:0 on a machine without a GPU where the oneDNN plugin
//   loaded; c->reason says so, and why not the others.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/device.h"

namespace switchyard {

enum class DevicePolicy {
  kFastest,   // the fastest device there is: a GPU, else the fastest CPU backend
  kPreferCpu, // the fastest CPU backend, even where there is a GPU
  kPreferGpu, // a GPU; without one, the fastest CPU backend, saying so
  kLowPower,  // the fastest CPU backend on one thread: no other core woken
};

// "fastest", "cpu", "gpu", "low-power" (and "low_power"); InvalidArgument
// naming the four otherwise.
absl::StatusOr<DevicePolicy> ParseDevicePolicy(absl::string_view name);
std::string DevicePolicyName(DevicePolicy policy);
// "fastest, cpu, gpu, low-power": for help texts and errors.
std::string DevicePolicyNames();

struct PolicyChoice {
  Device device = Device::Cpu();
  // One line: which device, by which policy, and why not the ones ranked
  // above it ("dnnl:0, oneDNN, the fastest CPU backend (device policy
  // fastest); passed over cuda (no device)").
  std::string reason;
  // The CPU threads the policy asks for (0: the backend's own default).
  int threads = 0;
};

// The device `policy` picks among `registry`'s. Never fails while cpu:0 is
// registered; FailedPrecondition when no ranked backend has a device.
absl::StatusOr<PolicyChoice> ChooseDevice(BackendRegistry& registry, DevicePolicy policy);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_DEVICE_POLICY_H_
