#ifndef SWITCHYARD_TOOLS_CLI_PROFILE_RUN_H_
#define SWITCHYARD_TOOLS_CLI_PROFILE_RUN_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/file_transaction.h"
#include "core/profiler.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "runtime/profile_run.h"

namespace switchyard {
namespace cli {

// `switchyard run --profile=trace.json --profile-summary`: what was asked.
struct ProfileFlags {
  std::string trace_path;  // resolved against where `bazel run` was started
  bool summary = false;
  int summary_rows = 10;  // rows per table of the summary; 0: all
  bool any() const { return !trace_path.empty() || summary; }
};
ProfileFlags GetProfileFlags();
// --profile-rows: 0 or more, and only with --profile-summary.
absl::Status CheckProfileFlags();

// Writes the Chrome trace (when asked) and prints the summary by op and by
// layer (when asked) of `events`.
// The trace is staged in `files` (the caller added flags.trace_path to it
// before the run, and commits it with the run's other outputs).
absl::Status WriteProfileOutputs(
    const ProfileFlags& flags, absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata,
    FileTransaction& files);

// Profiled iterations of `switchyard run` (runtime/profile_run.h) under
// --profile and --profile-summary: the trace written, the summary printed.
//
//   std::unique_ptr<RunProfiling> profiling = RunProfiling::FromFlags();
//   if (profiling) outputs = *profiling->Iteration(run, inputs, hosts, i, registry);
//   SY_RETURN_IF_ERROR(profiling->Finish({{"model", "vgg11"}}));
class RunProfiling {
 public:
  // Null when neither --profile nor --profile-summary is given.
  static std::unique_ptr<RunProfiling> FromFlags();

  // One forward pass: a plan's Run, or Session::Run.
  using RunFn = runtime::ProfiledIterations::RunFn;

  // The outputs of `run`. `host_inputs[i]` is uploaded into `inputs[i]`.
  absl::StatusOr<std::vector<Tensor>> Iteration(const RunFn& run,
                                                absl::Span<const Tensor> inputs,
                                                absl::Span<const HostArray> host_inputs,
                                                int iteration, BackendRegistry& registry) {
    return iterations_.Iteration(run, inputs, host_inputs, iteration, registry);
  }
  // Writes the trace, prints the summary.
  absl::Status Finish(const std::vector<std::pair<std::string, std::string>>& metadata,
                      FileTransaction& files);

 private:
  explicit RunProfiling(ProfileFlags flags) : flags_(std::move(flags)) {}
  ProfileFlags flags_;
  runtime::ProfiledIterations iterations_;
};

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_PROFILE_RUN_H_
