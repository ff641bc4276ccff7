#ifndef SWITCHYARD_TOOLS_CLI_DEVICE_CHOICE_H_
#define SWITCHYARD_TOOLS_CLI_DEVICE_CHOICE_H_

// The device and placement of `run` and `graph` from the flags: --device
// when given, else the one --device-policy picks (core/device_policy.h),
// whose nodes it lacks run on cpu:0 (auto placement unless --placement
// says otherwise). The policy's thread count (low-power: 1) applies unless
// --threads is given. The choice itself is the runtime's
// (runtime/device_choice.h); this reads the flags into its request.
//
//   SY_ASSIGN_OR_RETURN(FlagDevice d, DeviceFromFlags(registry));
//   std::printf("device: %s\n", d.reason.c_str());

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "runtime/device_choice.h"

ABSL_DECLARE_FLAG(std::string, device_policy);

namespace switchyard {
namespace cli {

// reason: "dnnl:0, oneDNN ... (device policy fastest); cuda has no
// device: ..." or "named by --device".
using FlagDevice = runtime::ResolvedDevice;

// Checks that the device exists in `registry` (Unavailable with the
// backend's reason otherwise).
absl::StatusOr<FlagDevice> DeviceFromFlags(BackendRegistry& registry);

// --placement when given, else auto for a device the policy chose and
// `default_placement` otherwise.
absl::StatusOr<PlacementPolicy> PlacementFromFlags(bool chosen_by_policy,
                                                   PlacementPolicy default_placement);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_DEVICE_CHOICE_H_
