#ifndef SWITCHYARD_TOOLS_CLI_ERROR_FIXES_H_
#define SWITCHYARD_TOOLS_CLI_ERROR_FIXES_H_

// Errors whose fix core words for C++ (x.To("dnnl:0")), given the command
// line's fix instead: the flags that do it (core/placement_hints.h).

#include "absl/status/status.h"

namespace switchyard {
namespace cli {

// `status` with its fix in flags: operands on different devices get
// --input-device / --device / --placement=auto, an op the named --device
// lacks under strict placement gets --placement=auto (never when it was
// already given). Anything else is returned as it is.
absl::Status WithCommandLineFix(const absl::Status& status);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_ERROR_FIXES_H_
