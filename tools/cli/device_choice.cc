#include "tools/cli/device_choice.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/device_policy.h"
#include "core/near_miss.h"
#include "core/status_macros.h"
#include "tools/cli/flags.h"

ABSL_FLAG(std::string, device_policy, "fastest",
          "how the device is chosen when --device is not given: fastest (a GPU, "
          "else oneDNN, else the Eigen backend), cpu (never a GPU), gpu (a GPU, "
          "else the fastest CPU backend), low-power (the fastest CPU backend on "
          "one thread); `switchyard devices` shows the choice");

namespace switchyard {
namespace cli {
absl::Status WithDeviceHint(const absl::Status& status, absl::string_view device_text,
                            const BackendRegistry& registry, absl::string_view flag) {
  if (status.ok()) return status;
  const std::string meant = MeantDevice(device_text, registry.Types());
  if (meant.empty() || meant == device_text) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (did you mean ", flag,
                                                  "=", meant, "?)"));
}

absl::StatusOr<PlacementPolicy> PlacementFromFlags(bool chosen_by_policy,
                                                   PlacementPolicy default_placement) {
  const std::string placement = absl::GetFlag(FLAGS_placement);
  if (!placement.empty()) return ParsePlacementPolicy(placement);
  return chosen_by_policy ? PlacementPolicy::kAuto : default_placement;
}

absl::StatusOr<FlagDevice> DeviceFromFlags(BackendRegistry& registry) {
  FlagDevice d;
  const std::string named = absl::GetFlag(FLAGS_device);
  if (FlagGiven("device_policy") && FlagGiven("device")) {
    return absl::InvalidArgumentError(
        "--device and --device-policy were both given: --device names the device, "
        "the policy chooses one when it is not named; drop one of them");
  }
  if (!named.empty()) {
    absl::StatusOr<Device> parsed = Device::Parse(named);
    if (!parsed.ok()) return WithDeviceHint(parsed.status(), named, registry);
    d.device = *parsed;
    d.reason = FlagGiven("device") ? "named by --device" : "this rank's device";
  } else {
    SY_ASSIGN_OR_RETURN(const DevicePolicy policy,
                        ParseDevicePolicy(absl::GetFlag(FLAGS_device_policy)));
    SY_ASSIGN_OR_RETURN(const PolicyChoice choice, ChooseDevice(registry, policy));
    d.device = choice.device;
    d.reason = choice.reason;
    d.chosen_by_policy = true;
    if (choice.threads > 0 && !FlagGiven("threads")) {
      SY_RETURN_IF_ERROR(registry.SetOption(
          absl::StrCat(choice.device.type(), ".threads=", choice.threads)));
    }
  }
  SY_RETURN_IF_ERROR(WithDeviceHint(registry.GetDevice(d.device).status(), named, registry));
  // A device the rank code filled in is not the user's choice either.
  SY_ASSIGN_OR_RETURN(d.placement,
                      PlacementFromFlags(d.chosen_by_policy || !FlagGiven("device"),
                                         PlacementPolicy::kStrict));
  return d;
}

}  // namespace cli
}  // namespace switchyard
