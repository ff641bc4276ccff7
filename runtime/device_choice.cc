#include "runtime/device_choice.h"

#include "absl/strings/str_cat.h"
#include "core/device_policy.h"
#include "core/near_miss.h"
#include "core/status_macros.h"

namespace switchyard {
namespace runtime {

absl::Status WithDeviceHint(const absl::Status& status, absl::string_view device_text,
                            const BackendRegistry& registry, absl::string_view flag) {
  if (status.ok()) return status;
  const std::string meant = MeantDevice(device_text, registry.Types());
  if (meant.empty() || meant == device_text) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (did you mean ", flag,
                                                  "=", meant, "?)"));
}

absl::StatusOr<ResolvedDevice> ResolveDevice(BackendRegistry& registry,
                                             const DeviceRequest& request) {
  ResolvedDevice d;
  const std::string& named = request.device;
  if (!named.empty()) {
    absl::StatusOr<Device> parsed = Device::Parse(named);
    if (!parsed.ok()) {
      return WithDeviceHint(parsed.status(), named, registry, request.device_option);
    }
    d.device = *parsed;
    d.reason = request.device_reason;
  } else {
    SY_ASSIGN_OR_RETURN(const DevicePolicy policy, ParseDevicePolicy(request.policy));
    SY_ASSIGN_OR_RETURN(const PolicyChoice choice, ChooseDevice(registry, policy));
    d.device = choice.device;
    d.reason = choice.reason;
    d.chosen_by_policy = true;
    if (choice.threads > 0 && request.apply_policy_threads) {
      SY_RETURN_IF_ERROR(registry.SetOption(
          absl::StrCat(choice.device.type(), ".threads=", choice.threads)));
    }
  }
  SY_RETURN_IF_ERROR(WithDeviceHint(registry.GetDevice(d.device).status(), named, registry,
                                    request.device_option));
  // A device a launcher filled in is not the user's choice either.
  if (!request.placement.empty()) {
    SY_ASSIGN_OR_RETURN(d.placement, ParsePlacementPolicy(request.placement));
  } else {
    d.placement = d.chosen_by_policy || !request.device_named_by_user
                      ? PlacementPolicy::kAuto
                      : PlacementPolicy::kStrict;
  }
  return d;
}

}  // namespace runtime
}  // namespace switchyard
