#ifndef SWITCHYARD_RUNTIME_PROFILE_RUN_H_
#define SWITCHYARD_RUNTIME_PROFILE_RUN_H_

// Profiled forward passes: each uploads the host input into the device
// input (a copy event), runs the model with a Profiler (an event per node
// on the device's clock: one static plan, or a staged run's segments with
// their run-time copies), downloads the outputs (copy events). What the
// front ends then write (a Chrome trace, core/profiler_trace.h) or print
// (core/profiler_summary.h) is theirs.
//
//   ProfiledIterations profiled;
//   for (int i = 0; i < n; ++i) outputs = *profiled.Iteration(run, inputs, hosts, i, registry);
//   std::string trace = ChromeTraceJson(profiled.profiler().events(),
//                                       {TraceOriginEntry(profiled.profiler().origin())});

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/profiler.h"
#include "core/tensor.h"
#include "models/host_array.h"

namespace switchyard {
namespace runtime {

// The key in a trace's "otherData" that holds its time 0 as microseconds
// of the host's steady clock (Profiler::Clock).
inline constexpr char kTraceOriginKey[] = "steady_clock_origin_us";
// The metadata entry {kTraceOriginKey, origin in microseconds}.
std::pair<std::string, std::string> TraceOriginEntry(Profiler::Clock::time_point origin);

class ProfiledIterations {
 public:
  // One forward pass: a plan's Run, or OnnxModel::Run.
  using RunFn = std::function<absl::StatusOr<std::vector<Tensor>>(
      absl::Span<const Tensor>, const RunOptions&)>;

  // The outputs of `run`. `host_inputs[i]` is uploaded into `inputs[i]`.
  absl::StatusOr<std::vector<Tensor>> Iteration(const RunFn& run,
                                                absl::Span<const Tensor> inputs,
                                                absl::Span<const HostArray> host_inputs,
                                                int iteration, BackendRegistry& registry);

  // Every event so far, and the clock's origin.
  const Profiler& profiler() const { return profiler_; }

 private:
  Profiler profiler_;
  std::vector<std::vector<char>> host_outputs_;
};

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_PROFILE_RUN_H_
