#include "tools/cli/error_fixes.h"

#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/device.h"
#include "core/placement_hints.h"
#include "tools/cli/flags.h"

namespace switchyard {
namespace cli {

absl::Status WithCommandLineFix(const absl::Status& status) {
  if (status.ok()) return status;
  if (std::optional<MixedDevices> mixed = ParseMixedDevices(status)) {
    const std::string fix =
        mixed->model_device.empty()
            ? std::string("put every operand on one device (--device, --input-device)")
            : absl::StrCat("--input-device=", mixed->model_device,
                           " puts the input on the model's device, or --device=",
                           mixed->data_device, " puts the model on the input's device");
    return absl::Status(status.code(),
                        absl::StrCat(WithoutFix(status), "\nFix: ", fix,
                                     "; or --placement=auto inserts the copy and reports "
                                     "what it moves."));
  }
  const std::string named = absl::GetFlag(FLAGS_device);
  if (named.empty() || absl::GetFlag(FLAGS_placement) == "auto") return status;
  absl::StatusOr<Device> device = Device::Parse(named);
  if (!device.ok() || *device == Device::Cpu() ||
      !IsUnsupportedOnDevice(status, device->ToString())) {
    return status;
  }
  return absl::Status(
      status.code(),
      absl::StrCat(status.message(), "\nFix: --placement=auto runs what ", device->ToString(),
                   " lacks on cpu:0 and the rest on ", device->ToString(),
                   " (or leave out --device: the default device policy places that way)."));
}

}  // namespace cli
}  // namespace switchyard
