#include "core/shape.h"

#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

absl::StatusOr<Shape> Shape::Create(absl::Span<const int64_t> dims,
                                    size_t element_size) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // The product of the non-zero dimensions must fit too, even when a zero
  // makes the element count 0: code that multiplies a subset of the
  // dimensions (flatten's merged size, strides) must not overflow either.
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " of shape [", absl::StrJoin(dims, ", "),
          "] is negative"));
    }
    if (dims[i] == 0) continue;
    if (count > kMax / dims[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(dims, ", "), "] has too many elements"));
    }
    count *= dims[i];
  }
  if (element_size != 0 &&
      count > kMax / static_cast<int64_t>(element_size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape [", absl::StrJoin(dims, ", "), "] is too large in bytes"));
  }
  return Shape(std::vector<int64_t>(dims.begin(), dims.end()));
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::ToString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ", "), "]");
}

}  // namespace switchyard
