#ifndef SWITCHYARD_RUNTIME_TEXT_COLUMNS_H_
#define SWITCHYARD_RUNTIME_TEXT_COLUMNS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace switchyard {
namespace runtime {

// The CLI's tables: rows of cells (the header row included) in aligned
// columns, two spaces between them, the first `left_aligned` columns (names)
// left-aligned and the rest (figures) right-aligned; each line starts with
// `indent`, and ends without trailing spaces. Rows may be short.
std::string TextColumns(const std::vector<std::vector<std::string>>& rows,
                        size_t left_aligned, const std::string& indent);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_TEXT_COLUMNS_H_
