#include "core/placement_report.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace switchyard {
namespace {

// The fallbacks, one line per cause (the reason without the node's own
// name) naming a few of its nodes; the op list a device adds to its reasons
// ("; it runs: ...") once per device. A detector's 36 gathers are one line.
std::string FallbacksToString(const std::vector<PlacementReport::Fallback>& fallbacks) {
  constexpr int kNodesNamed = 3;
  const std::string kRunsMarker = "; it runs: ";
  struct Cause {
    std::string from, to, reason;
    std::vector<std::string> nodes;
  };
  std::vector<Cause> causes;
  std::vector<std::pair<std::string, std::string>> runs;  // device, its op list
  for (const PlacementReport::Fallback& f : fallbacks) {
    std::string reason = f.reason;
    const size_t marker = reason.find(kRunsMarker);
    const std::string from = f.from.ToString();
    if (marker != std::string::npos) {
      const std::string ops = reason.substr(marker + kRunsMarker.size());
      if (std::none_of(runs.begin(), runs.end(), [&](const auto& r) { return r.first == from; })) {
        runs.push_back({from, ops});
      }
      reason.resize(marker);
    }
    reason = absl::StrReplaceAll(reason, {{absl::StrCat(" (node '", f.node, "')"), ""}});
    auto same = [&](const Cause& c) {
      return c.from == from && c.to == f.to.ToString() && c.reason == reason;
    };
    auto it = std::find_if(causes.begin(), causes.end(), same);
    if (it == causes.end()) {
      causes.push_back({from, f.to.ToString(), reason, {}});
      it = causes.end() - 1;
    }
    it->nodes.push_back(f.node);
  }
  std::string out;
  for (const Cause& c : causes) {
    const int n = static_cast<int>(c.nodes.size());
    std::vector<std::string> named(c.nodes.begin(), c.nodes.begin() + std::min(n, kNodesNamed));
    absl::StrAppend(&out, "\n  fell back: ", absl::StrJoin(named, ", "),
                    n > kNodesNamed ? absl::StrCat(" and ", n - kNodesNamed, " more like them") : "",
                    n == 1 ? " runs" : " run", " on ", c.to, " because ", c.from,
                    " cannot: ", c.reason);
  }
  for (const auto& [device, ops] : runs) {
    absl::StrAppend(&out, "\n  ", device, " runs: ", ops);
  }
  return out;
}

}  // namespace

int64_t PlacementReport::BytesPerRun() const {
  int64_t bytes = 0;
  for (const Move& m : moves) bytes += m.per_run && !m.shared ? m.bytes : 0;
  return bytes;
}

int PlacementReport::CopiesPerRun() const {
  int copies = 0;
  for (const Move& m : moves) copies += m.per_run && !m.shared ? 1 : 0;
  return copies;
}

int PlacementReport::SharesPerRun() const {
  int shares = 0;
  for (const Move& m : moves) shares += m.per_run && m.shared ? 1 : 0;
  return shares;
}

std::string PlacementReport::ToString() const {
  std::vector<std::string> per_run, once;
  int64_t once_bytes = 0;
  int shared_once = 0;
  for (const Move& m : moves) {
    if (m.shared) {
      shared_once += m.per_run ? 0 : 1;
      continue;
    }
    const std::string line = absl::StrCat(m.value, " ", m.from.ToString(), " -> ",
                                          m.to.ToString(), " (", m.bytes, " bytes)");
    (m.per_run ? per_run : once).push_back(line);
    if (!m.per_run) once_bytes += m.bytes;
  }
  std::string out = absl::StrCat("auto placement: ", per_run.size(), " cop",
                                 per_run.size() == 1 ? "y" : "ies", " per run, ",
                                 BytesPerRun(), " bytes per run");
  if (const int shares = SharesPerRun(); shares > 0) {
    absl::StrAppend(&out, "; ", shares, " value", shares == 1 ? "" : "s",
                    " per run change", shares == 1 ? "s" : "",
                    " device without a copy (the devices share host memory)");
  }
  if (!per_run.empty()) absl::StrAppend(&out, "\n  every run: ", absl::StrJoin(per_run, "\n             "));
  if (!once.empty()) {
    absl::StrAppend(&out, "\n  ", once.size(), " parameter", once.size() == 1 ? "" : "s",
                    " moved once at compile time (", once_bytes, " bytes): ",
                    absl::StrJoin(once, ", "));
  }
  if (shared_once > 0) {
    absl::StrAppend(&out, "\n  ", shared_once, " parameter", shared_once == 1 ? "" : "s",
                    " shared between devices of host memory (no copy)");
  }
  absl::StrAppend(&out, FallbacksToString(fallbacks));
  return out;
}

}  // namespace switchyard
