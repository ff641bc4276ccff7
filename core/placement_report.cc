#include "core/placement_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

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
  for (const Fallback& f : fallbacks) {
    absl::StrAppend(&out, "\n  fell back: ", f.node, " runs on ", f.to.ToString(),
                    " because ", f.from.ToString(), " cannot: ", f.reason);
  }
  return out;
}

}  // namespace switchyard
