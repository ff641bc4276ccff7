#ifndef SWITCHYARD_CORE_TIMELINE_ANALYSIS_H_
#define SWITCHYARD_CORE_TIMELINE_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/timeline.h"

namespace switchyard {

// The q-quantile (q in [0, 1]) of `values` with linear interpolation between
// order statistics (numpy's default): Percentile({1, 2, 3, 4}, 0.5) == 2.5.
// 0 for no values.
double Percentile(std::vector<double> values, double q);

// Length of the union of `intervals` clipped to `within`.
double UnionMs(std::vector<Interval> intervals, const Interval& within);

struct PhaseStats {
  std::string phase;  // "load", "wait", "h2d", "forward", "d2h"
  int count = 0;
  double total_ms = 0, mean_ms = 0, median_ms = 0, p95_ms = 0, max_ms = 0;
};

struct DeviceBusy {
  std::string device;
  double busy_ms = 0;     // union of its spans within the run
  double busy_share = 0;  // busy_ms / run
};

// When a diagnosis fires.
struct AnalysisThresholds {
  // Input starvation: the device waited for input at least this share of
  // the run after the first batch arrived (the pipeline's start-up fill is
  // reported apart: it is paid once per stream).
  double starved_wait_share = 0.10;
  // One node (name, all its calls) takes at least this share of the device's
  // busy time.
  double one_op_share = 0.50;
  // Host<->device copies take at least this share of the device's busy time.
  double copy_share = 0.30;
  // Starved, and the loaders waited for a core at least this share of their
  // load time: the advice is then cheaper loading or more cores, not more
  // loader threads.
  double saturated_core_wait_share = 0.25;
  // The device is idle at least this share of the run while its input is
  // ready: the host does not keep it fed with work (launch gaps, overhead).
  double host_idle_share = 0.20;
  // Fewer batches than this carry no verdict: the first batches pay the
  // pipeline's fill and the plans' first runs, and one slow batch moves
  // every share (six images once read "starved" one way and "balanced"
  // another).
  int min_batches = 8;
};

// What AnalyzeTimeline found.
struct UtilizationReport {
  enum class Verdict { kStarved, kHostBound, kOneOp, kCopies, kBalanced, kTooShort };

  std::string device;
  double run_ms = 0;
  int batches = 0;
  double images_per_s = 0;
  std::vector<PhaseStats> phases;  // load, wait, h2d, forward, d2h
  std::vector<DeviceBusy> devices;  // the fed device first
  double busy_share = 0;            // of the fed device
  double input_wait_ms = 0;         // every wait of the device's driver thread
  double input_wait_share = 0;      // input_wait_ms / run
  double startup_wait_ms = 0;       // the first batch's wait
  double steady_wait_share = 0;     // (input_wait_ms - startup) / run
  // Idle with no input wait to explain it: 1 - busy - input wait share.
  double other_idle_share = 0;
  // Load time of all batches / (loader threads x run).
  double loader_busy_share = 0;
  // Of the loads' wall time, the share the loader threads waited for a free
  // core (-1 when the timeline does not say): high means the cores are
  // saturated, and more loader threads would only take cores from others.
  double loader_core_wait_share = -1;
  // h2d + d2h time on the fed device / its busy time.
  double copy_share = 0;
  // The node with the most device time on the fed device (all its calls).
  std::string top_node;
  double top_node_share = 0;  // of the fed device's busy time
  // The loader stage with the most time and its share of all stages' time
  // (empty when the timeline has no stages).
  std::string top_loader_stage;
  double top_loader_stage_share = 0;
  Verdict verdict = Verdict::kBalanced;
  std::string diagnosis;  // one line
};

// "starved", "host_bound", "one_op", "copies", "balanced", "too_short": the
// verdict's name in every report (run --report, Python's Diagnosis).
const char* VerdictName(UtilizationReport::Verdict verdict);

// The utilization of `timeline`'s device: per-phase times, busy share, time
// waiting for input, and a one-line diagnosis with its advice; a stream of
// fewer than `min_batches` batches gets "too_short" and no verdict, else in
// this order of precedence:
//   starved:  "cpu:0 idle 78% of the run waiting for input: raise
//              --loader-threads or --prefetch (...; decode is 81% of
//              loading)"
//   host:     "cuda:0 idle 35% of the run with its input ready: ..."
//   one op:   "one op (features.8/conv2d) takes 60% of cpu:0 time"
//   copies:   "copies take 35% of cuda:0 time: ..."
//   balanced: "balanced: cpu:0 busy 97% of the run, ..."
// A pure function of the timeline. InvalidArgument for a timeline without
// batches or with an empty run.
absl::StatusOr<UtilizationReport> AnalyzeTimeline(
    const Timeline& timeline,
    const AnalysisThresholds& thresholds = AnalysisThresholds());

// The report as text: the phase table, busy shares, waits, the diagnosis.
std::string FormatUtilizationReport(const UtilizationReport& report,
                                    const Timeline& timeline);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_TIMELINE_ANALYSIS_H_
