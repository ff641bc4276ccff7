#ifndef SWITCHYARD_CORE_PROFILER_TRACE_H_
#define SWITCHYARD_CORE_PROFILER_TRACE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/profiler.h"

namespace switchyard {

// Chrome trace files (the JSON object format that chrome://tracing, Perfetto
// and speedscope open) from profile events.
//
// Layout: one process, "switchyard"; one thread (lane) per device stream,
// named "<device> stream" ("cpu:0 stream"), listed first, then one per host
// lane ("host", "loader 0", ...). Every event is a complete event
// ("ph": "X") with "ts" and "dur" in microseconds on the host timeline (see
// Profiler for how device times are mapped onto it). Node events are named
// by their layer path and op ("features.3/conv2d", category "node"); copies
// have category "copy", whole runs "run" (they enclose their nodes), host
// spans "host". "args" carry the op, layer, iteration, shapes, FLOPs and
// bytes, and GFLOP/s where FLOPs are known.
//
//   SY_RETURN_IF_ERROR(WriteChromeTrace("trace.json", profiler.events(),
//                                       {{"model", "vgg11"}}));
std::string ChromeTraceJson(
    absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata = {});

// Writes ChromeTraceJson to `path`; PermissionDenied naming the path when
// it cannot be written.
absl::Status WriteChromeTrace(
    const std::string& path, absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PROFILER_TRACE_H_
