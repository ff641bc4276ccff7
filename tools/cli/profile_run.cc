#include "tools/cli/profile_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/profiler_summary.h"
#include "core/profiler_trace.h"
#include "core/status_macros.h"
#include "tools/cli/flags.h"

ABSL_FLAG(std::string, profile, "",
          "run: write a Chrome trace (chrome://tracing, Perfetto) of the timed "
          "iterations to this file: an event per node per iteration on the "
          "device's clock, copies, host lanes");
ABSL_FLAG(bool, profile_summary, false,
          "run: print device time by op and by layer (calls, total, mean, "
          "share, GFLOP/s) over the timed iterations, the --profile-rows "
          "largest rows of each table");
ABSL_FLAG(int32_t, profile_rows, 10,
          "run --profile-summary: rows shown per table, largest first (0: every "
          "row; a detector has hundreds of layers)");

namespace switchyard {
namespace cli {

ProfileFlags GetProfileFlags() {
  ProfileFlags flags;
  flags.trace_path = ResolveUserPath(absl::GetFlag(FLAGS_profile));
  flags.summary = absl::GetFlag(FLAGS_profile_summary);
  flags.summary_rows = absl::GetFlag(FLAGS_profile_rows);
  return flags;
}

absl::Status CheckProfileFlags() {
  if (FlagGiven("profile_rows") && !absl::GetFlag(FLAGS_profile_summary)) {
    return absl::InvalidArgumentError(
        "--profile-rows sets the rows of --profile-summary's tables: give "
        "--profile-summary as well");
  }
  return CheckRange("--profile-rows", absl::GetFlag(FLAGS_profile_rows), 0, 1 << 20,
                    "rows per table; 0 shows every row");
}

absl::Status WriteProfileOutputs(
    const ProfileFlags& flags, absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata,
    FileTransaction& files) {
  if (flags.summary) {
    std::printf("\n%s",
                FormatProfileSummary(SummarizeProfile(events), flags.summary_rows).c_str());
  }
  if (!flags.trace_path.empty()) {
    if (!files.HasOutput(flags.trace_path)) {
      SY_RETURN_IF_ERROR(files.AddOutput(flags.trace_path, "--profile"));
    }
    SY_RETURN_IF_ERROR(
        files.Stage(flags.trace_path, ChromeTraceJson(events, metadata) + "\n"));
  }
  return absl::OkStatus();
}

std::unique_ptr<RunProfiling> RunProfiling::FromFlags() {
  ProfileFlags flags = GetProfileFlags();
  if (!flags.any()) return nullptr;
  return std::unique_ptr<RunProfiling>(new RunProfiling(std::move(flags)));
}

absl::StatusOr<std::vector<Tensor>> RunProfiling::Iteration(
    const RunFn& run, absl::Span<const Tensor> inputs,
    absl::Span<const HostArray> host_inputs, int iteration, BackendRegistry& registry) {
  if (inputs.size() != host_inputs.size()) {
    return absl::InternalError(absl::StrCat(inputs.size(), " inputs but ",
                                            host_inputs.size(), " host arrays"));
  }
  const auto host_start = Profiler::Clock::now();
  SY_RETURN_IF_ERROR(profiler_.BeginIteration(iteration));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& input = inputs[i];
    SY_ASSIGN_OR_RETURN(BackendDevice * in_device, registry.GetDevice(input.device()));
    const size_t in_bytes = std::min(input.size_bytes(), host_inputs[i].bytes.size());
    SY_RETURN_IF_ERROR(profiler_.TimeCopy(
        *in_device, inputs.size() == 1 ? "input h2d" : absl::StrCat("input ", i, " h2d"),
        "h2d", input.shape(), in_bytes, [&] {
          return in_device->CopyFromHost(host_inputs[i].bytes.data(), *input.buffer(),
                                         in_bytes);
        }));
  }
  RunOptions options;
  options.profiler = &profiler_;
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, run(inputs, options));
  host_outputs_.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    host_outputs_[i].resize(out.size_bytes());
    SY_ASSIGN_OR_RETURN(BackendDevice * out_device, registry.GetDevice(out.device()));
    SY_RETURN_IF_ERROR(profiler_.TimeCopy(
        *out_device, outputs.size() == 1 ? "output d2h" : absl::StrCat("output ", i, " d2h"),
        "d2h", out.shape(), out.size_bytes(), [&] {
          return out_device->CopyToHost(*out.buffer(), host_outputs_[i].data(),
                                        out.size_bytes());
        }));
  }
  SY_RETURN_IF_ERROR(profiler_.EndIteration());
  profiler_.AddHostEvent("host", absl::StrCat("iteration ", iteration), host_start,
                         Profiler::Clock::now());
  return outputs;
}

std::pair<std::string, std::string> TraceOriginEntry(Profiler::Clock::time_point origin) {
  return {kTraceOriginKey,
          absl::StrCat(
              std::chrono::duration<double, std::micro>(origin.time_since_epoch()).count())};
}

absl::Status RunProfiling::Finish(
    const std::vector<std::pair<std::string, std::string>>& metadata,
    FileTransaction& files) {
  // Where the trace's time 0 lies on the host's steady clock: what lines up
  // the traces of several MPI ranks (tools/cli/rank_command.cc).
  std::vector<std::pair<std::string, std::string>> with_origin = metadata;
  with_origin.push_back(TraceOriginEntry(profiler_.origin()));
  return WriteProfileOutputs(flags_, profiler_.events(), with_origin, files);
}

}  // namespace cli
}  // namespace switchyard
