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

using runtime::TraceOriginEntry;

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

absl::Status RunProfiling::Finish(
    const std::vector<std::pair<std::string, std::string>>& metadata,
    FileTransaction& files) {
  // Where the trace's time 0 lies on the host's steady clock: what lines up
  // the traces of several MPI ranks (tools/cli/rank_command.cc).
  std::vector<std::pair<std::string, std::string>> with_origin = metadata;
  with_origin.push_back(TraceOriginEntry(iterations_.profiler().origin()));
  return WriteProfileOutputs(flags_, iterations_.profiler().events(), with_origin, files);
}

}  // namespace cli
}  // namespace switchyard
