#include "tools/cli/device_choice.h"

#include "absl/flags/flag.h"
#include "core/status_macros.h"
#include "tools/cli/flags.h"

ABSL_FLAG(std::string, device_policy, "fastest",
          "how the device is chosen when --device is not given: fastest (a GPU, "
          "else oneDNN, else the Eigen backend), cpu (never a GPU), gpu (a GPU, "
          "else the fastest CPU backend), low-power (the fastest CPU backend on "
          "one thread); `switchyard devices` shows the choice");

namespace switchyard {
namespace cli {

absl::StatusOr<PlacementPolicy> PlacementFromFlags(bool chosen_by_policy,
                                                   PlacementPolicy default_placement) {
  const std::string placement = absl::GetFlag(FLAGS_placement);
  if (!placement.empty()) return ParsePlacementPolicy(placement);
  return chosen_by_policy ? PlacementPolicy::kAuto : default_placement;
}

absl::StatusOr<FlagDevice> DeviceFromFlags(BackendRegistry& registry) {
  if (FlagGiven("device_policy") && FlagGiven("device")) {
    return absl::InvalidArgumentError(
        "--device and --device-policy were both given: --device names the device, "
        "the policy chooses one when it is not named; drop one of them");
  }
  runtime::DeviceRequest request;
  request.device = absl::GetFlag(FLAGS_device);
  // A device the rank code filled in is not the user's choice either.
  request.device_named_by_user = FlagGiven("device");
  request.device_reason =
      request.device_named_by_user ? "named by --device" : "this rank's device";
  request.policy = absl::GetFlag(FLAGS_device_policy);
  request.apply_policy_threads = !FlagGiven("threads");
  request.placement = absl::GetFlag(FLAGS_placement);
  return runtime::ResolveDevice(registry, request);
}

}  // namespace cli
}  // namespace switchyard
