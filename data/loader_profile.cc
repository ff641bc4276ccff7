#include "data/loader_profile.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace switchyard {
namespace data {

void AddLoaderEvents(Profiler& profiler, int loader, int batch,
                     absl::Span<const StageSpan> spans) {
  const std::string lane = absl::StrCat("loader ", loader);
  for (const StageSpan& span : spans) {
    ProfileEvent e;
    e.kind = ProfileEvent::Kind::kHost;
    e.name = LoaderStageName(span.stage);
    e.op = kLoaderCategory;
    e.lane = lane;
    e.iteration = batch;
    e.start_us = profiler.ToUs(span.start);
    e.duration_us = profiler.ToUs(span.end) - e.start_us;
    profiler.AddEvent(std::move(e));
  }
}

LoaderSummary SummarizeLoader(absl::Span<const ProfileEvent> events, int64_t samples) {
  LoaderSummary summary;
  summary.samples = samples;
  summary.copy.stage = "copy to device";
  std::vector<LoaderStageRow> rows(kNumLoaderStages);
  for (int s = 0; s < kNumLoaderStages; ++s) {
    rows[s].stage = LoaderStageName(static_cast<LoaderStage>(s));
  }
  std::set<std::string> lanes;
  for (const ProfileEvent& e : events) {
    if (e.kind == ProfileEvent::Kind::kCopy && e.op == "h2d") {
      ++summary.copy.count;
      summary.copy.total_ms += e.duration_us / 1e3;
      continue;
    }
    if (e.kind != ProfileEvent::Kind::kHost || e.op != kLoaderCategory) continue;
    for (LoaderStageRow& row : rows) {
      if (row.stage != e.name) continue;
      ++row.count;
      row.total_ms += e.duration_us / 1e3;
      summary.stage_ms += e.duration_us / 1e3;
      lanes.insert(e.lane);
    }
  }
  summary.loader_threads = static_cast<int>(lanes.size());
  const double per = samples > 0 ? 1.0 / samples : 0;
  for (LoaderStageRow& row : rows) {
    if (row.count == 0) continue;
    row.ms_per_sample = row.total_ms * per;
    row.share = summary.stage_ms > 0 ? row.total_ms / summary.stage_ms : 0;
    summary.stages.push_back(row);
  }
  summary.copy.ms_per_sample = summary.copy.total_ms * per;
  summary.ms_per_sample = summary.stage_ms * per;
  return summary;
}

std::string FormatLoaderSummary(const LoaderSummary& s) {
  std::string text = absl::StrFormat(
      "%-34s %10s %8s\n",
      absl::StrCat("loader: ", s.loader_threads, " thread", s.loader_threads == 1 ? "" : "s",
                   ", ", s.samples, " samples"),
      "ms/sample", "share");
  for (const LoaderStageRow& row : s.stages) {
    absl::StrAppendFormat(&text, "  %-32s %10.3f %7.1f%%\n", row.stage, row.ms_per_sample,
                          100 * row.share);
  }
  absl::StrAppendFormat(&text, "  %-32s %10.3f %7.1f%%", "all stages", s.ms_per_sample,
                        s.stages.empty() ? 0.0 : 100.0);
  if (s.ms_per_sample > 0) {
    absl::StrAppendFormat(&text, "   %.1f images/s per loader thread",
                          1000 / s.ms_per_sample);
  }
  text += "\n";
  if (s.copy.count > 0) {
    absl::StrAppendFormat(&text, "  %-32s %10.3f %8s   %lld uploads (one per batch)\n",
                          "copy to device (driver)", s.copy.ms_per_sample, "",
                          static_cast<long long>(s.copy.count));
  }
  return text;
}

}  // namespace data
}  // namespace switchyard
