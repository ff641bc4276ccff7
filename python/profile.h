#ifndef SWITCHYARD_PYTHON_PROFILE_H_
#define SWITCHYARD_PYTHON_PROFILE_H_

// The profile of one Session.run(..., profile=True): every node timed on its
// device's own clock (core/profiler.h), as Python sees it: `events` (dicts
// with name, op, layer, lane, kind, start_us, duration_us, flops, bytes,
// shapes), `nodes` (the node events alone), `total_ms`, `summary()` (the
// table `switchyard run --profile-summary` prints), `chrome_trace()` (the
// JSON `--profile=trace.json` writes) and `save_chrome_trace(path)`.

#include <string>
#include <utility>
#include <vector>

#include "core/profiler.h"

namespace switchyard {
namespace python {

struct RunProfile {
  std::vector<ProfileEvent> events;
  // Trace metadata: the model and the device.
  std::vector<std::pair<std::string, std::string>> metadata;
};

}  // namespace python
}  // namespace switchyard

#endif  // SWITCHYARD_PYTHON_PROFILE_H_
