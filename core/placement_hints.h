#ifndef SWITCHYARD_CORE_PLACEMENT_HINTS_H_
#define SWITCHYARD_CORE_PLACEMENT_HINTS_H_

// What a placement error is about, read back from its status, so that each
// front end can say the fix in its own words (a flag on the command line,
// an argument in Python) instead of core's C++ calls.

#include <optional>
#include <string>

#include "absl/status/status.h"

namespace switchyard {

// A strict-placement "has operands on different devices" error: where the
// model's parameters are and where the data operand is (both set when the
// node mixes parameters and data; else empty).
struct MixedDevices {
  std::string model_device;
  std::string data_device;
};
std::optional<MixedDevices> ParseMixedDevices(const absl::Status& status);

// Everything of the error before its "Fix: " line (the whole message when
// it has none): what a front end keeps when it gives its own fix.
std::string WithoutFix(const absl::Status& status);

// A node that `device` cannot run, refused while lowering under strict
// placement ("node '...' (op ...) on dnnl:0: ..."): auto placement would
// run it on the fallback device.
bool IsUnsupportedOnDevice(const absl::Status& status, const std::string& device);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PLACEMENT_HINTS_H_
