#include "core/placement_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

int64_t PlacementReport::BytesPerRun() const {
  int64_t bytes = 0;
  for (const Move& m : moves) bytes += m.per_run ? m.bytes : 0;
  return bytes;
}

int PlacementReport::CopiesPerRun() const {
  int copies = 0;
  for (const Move& m : moves) copies += m.per_run ? 1 : 0;
  return copies;
}

std::string PlacementReport::ToString() const {
  std::vector<std::string> per_run, once;
  int64_t once_bytes = 0;
  for (const Move& m : moves) {
    const std::string line = absl::StrCat(m.value, " ", m.from.ToString(), " -> ",
                                          m.to.ToString(), " (", m.bytes, " bytes)");
    (m.per_run ? per_run : once).push_back(line);
    if (!m.per_run) once_bytes += m.bytes;
  }
  std::string out = absl::StrCat("auto placement: ", per_run.size(), " cop",
                                 per_run.size() == 1 ? "y" : "ies", " per run, ",
                                 BytesPerRun(), " bytes per run");
  if (!per_run.empty()) absl::StrAppend(&out, "\n  every run: ", absl::StrJoin(per_run, "\n             "));
  if (!once.empty()) {
    absl::StrAppend(&out, "\n  ", once.size(), " parameter", once.size() == 1 ? "" : "s",
                    " moved once at compile time (", once_bytes, " bytes): ",
                    absl::StrJoin(once, ", "));
  }
  for (const Fallback& f : fallbacks) {
    absl::StrAppend(&out, "\n  fell back: ", f.node, " runs on ", f.to.ToString(),
                    " because ", f.from.ToString(), " cannot: ", f.reason);
  }
  return out;
}

}  // namespace switchyard
