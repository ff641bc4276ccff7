#include "ops/gather_scatter_geometry.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

absl::Status IndexOutOfRange(absl::string_view op, const Shape& indices,
                             int64_t position, int64_t value, int axis,
                             int64_t size) {
  std::vector<int64_t> index(indices.rank());
  for (int d = indices.rank() - 1; d >= 0; --d) {
    if (indices.dim(d) == 0) break;
    index[d] = position % indices.dim(d);
    position /= indices.dim(d);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      op, ": indices[", absl::StrJoin(index, ", "), "] = ", value,
      " is out of range for axis ", axis, " of size ", size,
      size > 0 ? absl::StrCat(" (valid: ", -size, " to ", size - 1, ")")
               : std::string(" (no index is valid)")));
}

}  // namespace switchyard
