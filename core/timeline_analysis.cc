#include "core/timeline_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/slow_op.h"

namespace switchyard {
namespace {

PhaseStats Phase(const std::string& name, const std::vector<double>& ms) {
  PhaseStats s;
  s.phase = name;
  s.count = static_cast<int>(ms.size());
  for (double v : ms) {
    s.total_ms += v;
    s.max_ms = std::max(s.max_ms, v);
  }
  s.mean_ms = ms.empty() ? 0 : s.total_ms / ms.size();
  s.median_ms = Percentile(ms, 0.5);
  s.p95_ms = Percentile(ms, 0.95);
  return s;
}

std::string Pct(double share) { return absl::StrFormat("%.0f%%", 100 * share); }

}  // namespace

const char* VerdictName(UtilizationReport::Verdict verdict) {
  switch (verdict) {
    case UtilizationReport::Verdict::kStarved:
      return "starved";
    case UtilizationReport::Verdict::kHostBound:
      return "host_bound";
    case UtilizationReport::Verdict::kOneOp:
      return "one_op";
    case UtilizationReport::Verdict::kCopies:
      return "copies";
    case UtilizationReport::Verdict::kBalanced:
      return "balanced";
    case UtilizationReport::Verdict::kTooShort:
      return "too_short";
  }
  return "?";
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  q = std::min(1.0, std::max(0.0, q));
  const double pos = q * (values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - lo) * (values[hi] - values[lo]);
}

double UnionMs(std::vector<Interval> intervals, const Interval& within) {
  for (Interval& i : intervals) {
    i.start_ms = std::max(i.start_ms, within.start_ms);
    i.end_ms = std::min(i.end_ms, within.end_ms);
  }
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start_ms < b.start_ms; });
  double total = 0;
  bool open = false;
  Interval current;
  for (const Interval& i : intervals) {
    if (i.end_ms <= i.start_ms) continue;
    if (open && i.start_ms <= current.end_ms) {
      current.end_ms = std::max(current.end_ms, i.end_ms);
      continue;
    }
    if (open) total += current.duration_ms();
    current = i;
    open = true;
  }
  if (open) total += current.duration_ms();
  return total;
}

absl::StatusOr<UtilizationReport> AnalyzeTimeline(
    const Timeline& timeline, const AnalysisThresholds& thresholds) {
  if (timeline.batches.empty()) {
    return absl::InvalidArgumentError("the timeline has no batches to analyze");
  }
  const double run_ms = timeline.run.duration_ms();
  if (!(run_ms > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the timeline's run is empty (", timeline.run.start_ms, " to ",
        timeline.run.end_ms, " ms)"));
  }
  UtilizationReport r;
  r.device = timeline.device;
  r.run_ms = run_ms;
  r.batches = static_cast<int>(timeline.batches.size());
  r.images_per_s = timeline.batch_size * r.batches / (run_ms / 1e3);

  // Per-phase times; waits and loads in batch order for the start-up split.
  std::vector<BatchTimeline> batches = timeline.batches;
  std::sort(batches.begin(), batches.end(),
            [](const BatchTimeline& a, const BatchTimeline& b) {
              return a.wait.start_ms < b.wait.start_ms;
            });
  std::vector<double> load, wait, h2d, forward, d2h, device_per_batch;
  for (const BatchTimeline& b : batches) {
    load.push_back(b.load.duration_ms());
    wait.push_back(std::max(0.0, b.wait.duration_ms()));
    h2d.push_back(b.h2d.duration_ms());
    forward.push_back(b.forward.duration_ms());
    d2h.push_back(b.d2h.duration_ms());
    device_per_batch.push_back(h2d.back() + forward.back() + d2h.back());
  }
  r.phases = {Phase("load", load), Phase("wait", wait), Phase("h2d", h2d),
              Phase("forward", forward), Phase("d2h", d2h)};
  for (double w : wait) r.input_wait_ms += w;
  r.input_wait_share = r.input_wait_ms / run_ms;
  r.startup_wait_ms = wait.front();
  r.steady_wait_share = (r.input_wait_ms - r.startup_wait_ms) / run_ms;
  double load_total = 0;
  for (double v : load) load_total += v;
  double core_wait = 0, core_wait_of = 0;
  for (const BatchTimeline& b : batches) {
    if (b.load_core_wait_ms < 0) continue;
    core_wait += b.load_core_wait_ms;
    core_wait_of += b.load.duration_ms();
  }
  if (core_wait_of > 0) r.loader_core_wait_share = core_wait / core_wait_of;
  r.loader_busy_share =
      timeline.loader_threads > 0 ? load_total / (timeline.loader_threads * run_ms) : 0;

  // Busy time per device: the union of its spans (or, without spans, of
  // the fed device's batch phases).
  std::map<std::string, std::vector<Interval>> spans;
  std::map<std::string, double> node_ms;  // fed device, by node
  double copy_ms = 0, work_ms = 0;
  if (timeline.device_spans.empty()) {
    for (const BatchTimeline& b : batches) {
      spans[timeline.device].insert(spans[timeline.device].end(),
                                    {b.h2d, b.forward, b.d2h});
      copy_ms += b.h2d.duration_ms() + b.d2h.duration_ms();
      work_ms += b.h2d.duration_ms() + b.forward.duration_ms() + b.d2h.duration_ms();
    }
  } else {
    for (const DeviceSpan& s : timeline.device_spans) {
      spans[s.device].push_back(s.interval);
      if (s.device != timeline.device) continue;
      work_ms += s.interval.duration_ms();
      if (s.op == "h2d" || s.op == "d2h" || s.op == "copy") {
        copy_ms += s.interval.duration_ms();
      } else {
        node_ms[s.name] += s.interval.duration_ms();
      }
    }
  }
  r.devices.push_back({timeline.device, 0, 0});
  for (const auto& [device, intervals] : spans) {
    DeviceBusy busy{device, UnionMs(intervals, timeline.run), 0};
    busy.busy_share = busy.busy_ms / run_ms;
    if (device == timeline.device) {
      r.devices.front() = busy;
    } else {
      r.devices.push_back(busy);
    }
  }
  r.busy_share = r.devices.front().busy_share;
  r.other_idle_share = std::max(0.0, 1 - r.busy_share - r.input_wait_share);
  r.copy_share = work_ms > 0 ? copy_ms / work_ms : 0;
  for (const auto& [name, ms] : node_ms) {
    const double share = work_ms > 0 ? ms / work_ms : 0;
    if (share > r.top_node_share) {
      r.top_node = name;
      r.top_node_share = share;
    }
  }

  double stage_total = 0;
  for (const auto& [stage, ms] : timeline.loader_stage_ms) stage_total += ms;
  for (const auto& [stage, ms] : timeline.loader_stage_ms) {
    const double share = stage_total > 0 ? ms / stage_total : 0;
    if (share > r.top_loader_stage_share) {
      r.top_loader_stage = stage;
      r.top_loader_stage_share = share;
    }
  }
  // Which step of loading to make cheaper, when the loader says.
  const std::string slow_stage =
      r.top_loader_stage.empty()
          ? ""
          : absl::StrFormat("; %s is %s of loading", r.top_loader_stage,
                            Pct(r.top_loader_stage_share));

  const std::string& dev = timeline.device;
  if (r.batches < thresholds.min_batches) {
    r.verdict = UtilizationReport::Verdict::kTooShort;
    r.diagnosis = absl::StrFormat(
        "no verdict: %d batch%s are too few to carry one (the first ones pay the "
        "pipeline's start-up); stream %d or more. Measured: %s busy %s of the run, "
        "waiting for input %s",
        r.batches, r.batches == 1 ? "" : "es", thresholds.min_batches, dev,
        Pct(r.busy_share), Pct(r.input_wait_share));
  } else if (r.steady_wait_share >= thresholds.starved_wait_share) {
    r.verdict = UtilizationReport::Verdict::kStarved;
    const double load_mean = r.phases[0].mean_ms;
    double device_mean = 0;
    for (double v : device_per_batch) device_mean += v;
    device_mean /= device_per_batch.size();
    const std::string costs = absl::StrFormat(
        "a batch takes %.0f ms to load and %.0f ms on %s", load_mean, device_mean, dev);
    if (r.loader_core_wait_share >= thresholds.saturated_core_wait_share) {
      // More loader threads cannot help: they would wait for cores too.
      r.diagnosis = absl::StrFormat(
          "%s idle %s of the run waiting for input, and the loaders waited for "
          "a free core %s of their load time: the cores are saturated, so make "
          "loading cheaper or give it more cores (more loader threads would "
          "take cores from the device's work; %s%s)",
          dev, Pct(r.input_wait_share), Pct(r.loader_core_wait_share), costs,
          slow_stage);
    } else {
      std::string why =
          absl::StrFormat("loaders busy %s; %s", Pct(r.loader_busy_share), costs);
      if (device_mean > 0 && r.loader_busy_share >= 0.8) {
        const int needed = static_cast<int>(std::ceil(load_mean / device_mean));
        absl::StrAppendFormat(&why, ", so about %d loader thread%s would keep up",
                              needed, needed == 1 ? "" : "s");
      }
      r.diagnosis = absl::StrFormat(
          "%s idle %s of the run waiting for input: raise --loader-threads or "
          "--prefetch (%s%s)",
          dev, Pct(r.input_wait_share), why, slow_stage);
    }
  } else if (r.other_idle_share >= thresholds.host_idle_share) {
    r.verdict = UtilizationReport::Verdict::kHostBound;
    r.diagnosis = absl::StrFormat(
        "%s idle %s of the run with its input ready: the host does not queue "
        "work fast enough (gaps between kernels or between batches); larger "
        "batches spread the per-batch overhead, and the profile's trace shows "
        "the gaps",
        dev, Pct(r.other_idle_share));
  } else if (!r.top_node.empty() && r.top_node_share >= thresholds.one_op_share) {
    r.verdict = UtilizationReport::Verdict::kOneOp;
    r.diagnosis = absl::StrFormat("one op (%s) takes %s of %s time: %s",
                                  ShortNodeName(r.top_node), Pct(r.top_node_share), dev,
                                  SlowOpAdvice(r.top_node, dev));
  } else if (r.copy_share >= thresholds.copy_share) {
    r.verdict = UtilizationReport::Verdict::kCopies;
    r.diagnosis = absl::StrFormat(
        "copies take %s of %s time: keep data on the device between steps, or "
        "overlap copies with compute",
        Pct(r.copy_share), dev);
  } else {
    r.verdict = UtilizationReport::Verdict::kBalanced;
    r.diagnosis = absl::StrFormat(
        "balanced: %s busy %s of the run, waiting for input %s (%s after the "
        "first batch): the device's own speed sets the pace, so a faster device "
        "or a lighter model is what helps",
        dev, Pct(r.busy_share), Pct(r.input_wait_share), Pct(r.steady_wait_share));
    if (!r.top_node.empty()) {
      absl::StrAppendFormat(&r.diagnosis, "; largest op %s at %s of device time",
                            ShortNodeName(r.top_node), Pct(r.top_node_share));
    }
  }
  return r;
}

std::string FormatUtilizationReport(const UtilizationReport& r,
                                    const Timeline& timeline) {
  std::string out = absl::StrFormat(
      "utilization of %s: %d batches of %d in %.1f ms (%.2f images/s); %d "
      "loader thread%s, prefetch %d\n",
      r.device, r.batches, timeline.batch_size, r.run_ms, r.images_per_s,
      timeline.loader_threads, timeline.loader_threads == 1 ? "" : "s",
      timeline.prefetch);
  absl::StrAppendFormat(&out, "%-8s %6s %11s %9s %9s %9s %9s\n", "phase", "count",
                        "total ms", "mean ms", "median", "p95", "max");
  for (const PhaseStats& p : r.phases) {
    absl::StrAppendFormat(&out, "%-8s %6d %11.1f %9.2f %9.2f %9.2f %9.2f\n",
                          p.phase, p.count, p.total_ms, p.mean_ms, p.median_ms,
                          p.p95_ms, p.max_ms);
  }
  for (const DeviceBusy& d : r.devices) {
    absl::StrAppendFormat(&out, "%s busy %.1f%% of the run (%.1f ms)\n", d.device,
                          100 * d.busy_share, d.busy_ms);
  }
  absl::StrAppendFormat(
      &out,
      "waiting for input: %.1f ms, %.1f%% of the run (%.1f ms before the first "
      "batch, %.1f%% after it)\n",
      r.input_wait_ms, 100 * r.input_wait_share, r.startup_wait_ms,
      100 * r.steady_wait_share);
  absl::StrAppendFormat(&out,
                        "idle with input ready: %.1f%%; loaders busy %.1f%%",
                        100 * r.other_idle_share, 100 * r.loader_busy_share);
  if (r.loader_core_wait_share >= 0) {
    absl::StrAppendFormat(&out, " (waiting for a free core %.1f%% of it)",
                          100 * r.loader_core_wait_share);
  }
  absl::StrAppendFormat(&out, "; copies %.1f%% of device time", 100 * r.copy_share);
  if (!r.top_node.empty()) {
    absl::StrAppendFormat(&out, "; largest op %s %.1f%%", ShortNodeName(r.top_node),
                          100 * r.top_node_share);
  }
  absl::StrAppendFormat(&out, "\ndiagnosis: %s\n", r.diagnosis);
  return out;
}

}  // namespace switchyard
