#include "runtime/text_columns.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace switchyard {
namespace runtime {

std::string TextColumns(const std::vector<std::vector<std::string>>& rows,
                        size_t left_aligned, const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : std::string();
      if (c > 0) line += "  ";
      absl::StrAppendFormat(&line, c < left_aligned ? "%-*s" : "%*s", width[c], cell);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace runtime
}  // namespace switchyard
