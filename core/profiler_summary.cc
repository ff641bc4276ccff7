#include "core/profiler_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/slow_op.h"

namespace switchyard {
namespace {

bool IsWork(const ProfileEvent& e) { return e.is_work(); }
bool IsPart(const ProfileEvent& e) { return e.kind == ProfileEvent::Kind::kPart; }

std::vector<ProfileSummaryRow> Group(
    absl::Span<const ProfileEvent> events, double total_ms,
    std::string (*key_of)(const ProfileEvent&),
    bool (*counts)(const ProfileEvent&) = &IsWork) {
  std::map<std::pair<std::string, std::string>, ProfileSummaryRow> rows;
  for (const ProfileEvent& e : events) {
    if (!counts(e)) continue;
    const std::string key = key_of(e);
    ProfileSummaryRow& row = rows[{key, e.lane}];
    row.key = key;
    row.device = e.lane;
    row.calls += 1;
    row.total_ms += e.duration_us / 1e3;
    row.flops += e.flops;
  }
  std::vector<ProfileSummaryRow> out;
  for (auto& [key, row] : rows) {
    row.mean_ms = row.total_ms / row.calls;
    row.share = total_ms > 0 ? row.total_ms / total_ms : 0;
    row.gflop_per_s = row.total_ms > 0 ? row.flops / (row.total_ms * 1e6) : 0;
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ProfileSummaryRow& a, const ProfileSummaryRow& b) {
                     return a.total_ms > b.total_ms;
                   });
  return out;
}

std::string OpKey(const ProfileEvent& e) { return e.op.empty() ? e.name : e.op; }
std::string NameKey(const ProfileEvent& e) { return e.name; }
std::string PartKey(const ProfileEvent& e) { return absl::StrCat(e.name, ": ", e.op); }
// Layer "/backbone/body/Conv" -> "backbone"; a layer without a path
// ("features.3"), or a copy, is "(other)".
std::string StageKey(const ProfileEvent& e) {
  const std::string& path = e.layer;
  const size_t begin = path.find_first_not_of('/');
  const size_t end = begin == std::string::npos ? std::string::npos : path.find('/', begin);
  if (e.kind != ProfileEvent::Kind::kNode || end == std::string::npos) return "(other)";
  return path.substr(begin, end - begin);
}

// The share of the time at or above which one layer is named slow.
constexpr double kSlowLayerShare = 0.25;

void AppendTable(std::string* out, const char* title,
                 const std::vector<ProfileSummaryRow>& rows, int max_rows) {
  size_t width = std::string(title).size();
  size_t device_width = 6;
  for (const ProfileSummaryRow& r : rows) {
    width = std::max(width, ShortNodeName(r.key).size());
    device_width = std::max(device_width, r.device.size());
  }
  absl::StrAppendFormat(out, "%-*s  %-*s %7s %11s %10s %7s %9s\n", width, title,
                        device_width, "device", "calls", "total ms", "mean ms",
                        "share", "GFLOP/s");
  int shown = 0;
  for (const ProfileSummaryRow& r : rows) {
    if (max_rows > 0 && shown == max_rows) {
      absl::StrAppendFormat(out, "... %d more\n",
                            static_cast<int>(rows.size()) - shown);
      break;
    }
    ++shown;
    absl::StrAppendFormat(
        out, "%-*s  %-*s %7d %11.3f %10.3f %6.1f%% %9s\n", width, ShortNodeName(r.key),
        device_width, r.device, r.calls, r.total_ms, r.mean_ms, 100 * r.share,
        r.flops > 0 ? absl::StrFormat("%.2f", r.gflop_per_s) : std::string("-"));
  }
}

}  // namespace

ProfileSummary SummarizeProfile(absl::Span<const ProfileEvent> events) {
  ProfileSummary summary;
  std::set<int> iterations;
  for (const ProfileEvent& e : events) {
    if (!e.is_work()) continue;
    summary.total_ms += e.duration_us / 1e3;
    iterations.insert(e.iteration);
  }
  summary.iterations = static_cast<int>(iterations.size());
  summary.by_op = Group(events, summary.total_ms, &OpKey);
  summary.by_layer = Group(events, summary.total_ms, &NameKey);
  summary.by_stage = Group(events, summary.total_ms, &StageKey);
  int stages = 0;
  for (const ProfileSummaryRow& r : summary.by_stage) stages += r.key != "(other)";
  if (stages < 2) summary.by_stage.clear();
  summary.by_part_kind = Group(events, summary.total_ms, &OpKey, &IsPart);
  summary.by_part = Group(events, summary.total_ms, &PartKey, &IsPart);
  return summary;
}

std::string FormatProfileSummary(const ProfileSummary& summary, int max_rows) {
  std::string out = absl::StrFormat(
      "profile: %.3f ms of device time in nodes and copies over %d "
      "iteration%s (device clocks)\n",
      summary.total_ms, summary.iterations, summary.iterations == 1 ? "" : "s");
  for (const ProfileSummaryRow& r : summary.by_op) {
    if (r.device == "host") {
      out += "(nodes on the 'host' lane ran on the host, on this run's data: the "
             "device waits for them)\n";
      break;
    }
  }
  AppendTable(&out, "by op", summary.by_op, max_rows);
  out += "\n";
  AppendTable(&out, "by layer", summary.by_layer, max_rows);
  if (!summary.by_stage.empty()) {
    out += "\n";
    AppendTable(&out, "by stage", summary.by_stage, max_rows);
  }
  if (!summary.by_part_kind.empty()) {
    out += "\n(parts: the steps inside fused kernels, host clock, already counted in their node)\n";
    AppendTable(&out, "parts by kind", summary.by_part_kind, max_rows);
    out += "\n";
    AppendTable(&out, "parts", summary.by_part, max_rows);
  }
  if (!summary.by_layer.empty() && summary.by_layer[0].share >= kSlowLayerShare) {
    const ProfileSummaryRow& slow = summary.by_layer[0];
    absl::StrAppendFormat(&out, "verdict: one op (%s) takes %.0f%% of the profiled time (%s)\n"
                          "  what helps: %s\n",
                          ShortNodeName(slow.key), 100 * slow.share, slow.device,
                          SlowOpAdvice(slow.key, slow.device));
  }
  return out;
}

}  // namespace switchyard
