#ifndef SWITCHYARD_RUNTIME_DEVICE_CHOICE_H_
#define SWITCHYARD_RUNTIME_DEVICE_CHOICE_H_

// The device and placement a front end runs on: the device it names when it
// names one, else the one a device policy picks (core/device_policy.h),
// whose nodes it lacks run on cpu:0 (auto placement unless the request says
// otherwise). The policy's thread count (low-power: 1) is set on the
// device's backend unless the front end set the threads itself. A device
// type that is a near miss of a registered one gets "did you mean ...?".
//
//   DeviceRequest request;
//   request.policy = "low-power";
//   SY_ASSIGN_OR_RETURN(ResolvedDevice d, ResolveDevice(registry, request));
//   std::printf("device: %s\n", d.reason.c_str());  // the front end prints

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"

namespace switchyard {
namespace runtime {

struct DeviceRequest {
  // The device ("cuda:1"); empty: `policy` chooses one.
  std::string device;
  // ResolvedDevice::reason for a named device ("named by --device").
  std::string device_reason;
  // Whether the user named `device` (not a launcher such as an MPI rank's
  // share): a device the user named keeps strict placement by default.
  bool device_named_by_user = false;
  // core/device_policy.h: fastest, cpu, gpu, low-power.
  std::string policy = "fastest";
  // Whether the policy's thread count is set on the chosen backend (false
  // when the front end set the threads itself).
  bool apply_policy_threads = true;
  // "strict" or "auto" (core/compile.h); empty: auto for a device the
  // user did not name, strict for one they did.
  std::string placement;
  // The name errors give the device (`flag` of WithDeviceHint).
  std::string device_option = "--device";
};

struct ResolvedDevice {
  Device device = Device::Cpu();
  // "dnnl:0, oneDNN ... (device policy fastest); cuda has no device: ..."
  // or DeviceRequest::device_reason.
  std::string reason;
  bool chosen_by_policy = false;
  PlacementPolicy placement = PlacementPolicy::kStrict;
};

// Checks that the device exists in `registry` (Unavailable with the
// backend's reason otherwise).
absl::StatusOr<ResolvedDevice> ResolveDevice(BackendRegistry& registry,
                                             const DeviceRequest& request);

// `status` (from looking up `device_text`) with "did you mean
// --device=cuda:0?" (`flag` names the flag)
// when the type is a near miss of a registered one: a type and its index
// without the colon ("cuda0"), PyTorch's and oneDNN's other names ("gpu",
// "mkldnn"), or a typo ("dnn"); `status` itself otherwise.
absl::Status WithDeviceHint(const absl::Status& status, absl::string_view device_text,
                            const BackendRegistry& registry,
                            absl::string_view flag = "--device");

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_DEVICE_CHOICE_H_
