#ifndef SWITCHYARD_RUNTIME_RANK_MERGE_H_
#define SWITCHYARD_RUNTIME_RANK_MERGE_H_

// Rank 0's view of an MPI job (`mpirun -np N switchyard bench|run ...`):
// every rank's own document (bench --json, run --report, --profile trace),
// gathered by the caller, merged into one table and one JSON, with a
// straggler verdict across ranks. Pure functions: no MPI here.
//
//   SY_ASSIGN_OR_RETURN(MergedBench merged, MergeBenchRanks(ranks, docs));
//   std::printf("%s", merged.table.c_str());
//
// The documents come from other processes and are not trusted: a missing
// field, a wrong type, a negative or non-finite number is InvalidArgument
// naming the rank, its host and the field ("results[1].end_to_end_ms.median").

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace runtime {

// Who a rank is: MPI rank, its host name, the device it ran on ("cpu:0",
// "cuda:1").
struct RankIdentity {
  int rank = 0;
  std::string host;
  std::string device;
};

// With synchronous data-parallel work the job runs at the slowest rank's
// pace, so a rank 15% slower than the rest costs the job ~13% of its
// throughput (1 - 1/1.15); repeated runs on one quiet machine vary by a few
// percent, so 15% is well outside that noise yet small enough to matter.
inline constexpr double kStragglerMargin = 0.15;

// The straggler verdict across ranks. `seconds[i]` is ranks[i]'s time per
// unit of work (lower is better); `causes[i]` its own single-process
// diagnosis (may be empty, and `causes` may be empty altogether). A rank is
// a straggler when its time exceeds the median of the OTHER ranks' times
// (leave-one-out, so 2 ranks compare with each other) by more than
// kStragglerMargin; only the slowest such rank is named, with `ratio` = its
// time / that median. Fewer than 2 ranks, sizes that differ, or a
// non-positive or non-finite time: found = false with `text` saying why.
struct Straggler {
  bool found = false;
  int rank = -1;     // RankIdentity::rank of the straggler
  double ratio = 0;  // its time / the other ranks' median
  std::string text;  // one line, always set
};
Straggler FindStraggler(const std::vector<RankIdentity>& ranks,
                        const std::vector<double>& seconds,
                        const std::vector<std::string>& causes);
nlohmann::json StragglerJson(const Straggler& straggler);

// bench: each rank's `switchyard bench --json` document (schema
// "switchyard.bench/1", runtime/bench.h BenchReportJson). Every result row
// of every rank is used (a rank may have measured several devices). Per batch
// size: one row per rank and device (end-to-end median and p95 ms,
// images/s), a total row (images/s summed; step = the slowest median, which
// synchronous data-parallel work runs at) and the straggler line on median
// ms per image. A row with "error" shows it and stays out of the totals; a
// rank without a row at a batch size another rank measured shows "no result".
// All ranks must have benchmarked one model.
//
// JSON: {"schema": "switchyard.bench_ranks/1", "model", "ranks": [{rank,
// host, device}], "results": [{"batch", "ranks": [{rank, host, device,
// end_to_end_ms: {median, p95}, images_per_s} or {rank, host, device,
// error}], "total_images_per_s", "step_ms", "slowest_rank", "straggler":
// {found, rank, ratio, text}}], "per_rank": [the documents as given]}.
// "slowest_rank" and "step_ms" are null when no rank succeeded at a batch.
struct MergedBench {
  std::string table;    // printed by rank 0
  nlohmann::json json;  // written by rank 0 for --json
};
absl::StatusOr<MergedBench> MergeBenchRanks(const std::vector<RankIdentity>& ranks,
                                            const std::vector<nlohmann::json>& docs);

// What one rank's `switchyard run --report` says, whichever of its three
// shapes it has:
//  - timed iterations (tools/cli/run_command.cc): "images_per_s", "batch" and
//    "iterations"; images = batch x iterations; no verdict;
//  - an image or batch stream (tools/cli/utilization.cc, "run_ms"):
//    "images_per_s", "images"."samples" or else "batch" x "batches", and
//    "verdict" with "diagnosis";
//  - images at their own size (tools/cli/own_size_images.cc, "images" is a
//    list): images = its length, images/s from the per-image times
//    ("ms": read_decode + to_tensor + model + compile), and "verdict".
struct RunFigures {
  std::string kind;  // "timed iterations", "stream", "images at own size"
  int64_t images = 0;
  double images_per_s = 0;
  std::string cause;  // the rank's own diagnosis; empty when it has none
};
absl::StatusOr<RunFigures> ReadRunReport(const RankIdentity& rank,
                                         const nlohmann::json& report);

// run: per rank (rank, host, device, kind, images, images/s and its own
// verdict), the totals and the straggler across ranks on seconds per image
// (1 / images/s) with each rank's own diagnosis as its cause.
//
// JSON: {"schema": "switchyard.run_ranks/1", "model" (rank 0's, when its
// report has one), "ranks": [{rank, host, device, kind, images,
// images_per_s, cause}], "total_images", "total_images_per_s",
// "slowest_rank", "straggler": {..}, "per_rank": [the reports as given]}.
struct MergedRun {
  std::string table;
  nlohmann::json json;
};
absl::StatusOr<MergedRun> MergeRunReports(const std::vector<RankIdentity>& ranks,
                                          const std::vector<nlohmann::json>& reports);

// --profile: each rank's Chrome trace (core/profiler_trace.h). The merged
// trace has one process per rank: every event's "pid" becomes the rank, its
// "ts" (where it has one) is shifted by shift_us[i] onto rank 0's time axis,
// the rank's own process_name is replaced by "rank R: HOST DEVICE" and a
// process_sort_index R is added; thread names and other metadata events are
// kept. The other top-level keys of rank 0's trace are kept, plus "ranks":
// [{rank, host, device, "other_data": the rank's "otherData" if any}].
absl::StatusOr<nlohmann::json> MergeTraces(const std::vector<RankIdentity>& ranks,
                                           const std::vector<nlohmann::json>& traces,
                                           const std::vector<double>& shift_us);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_RANK_MERGE_H_
