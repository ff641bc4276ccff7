#include "ops/shape_geometry.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

// Clamps after counting a negative value from the end (value + n cannot
// overflow: n >= 0).
int64_t Wrap(int64_t value, int64_t n) { return value < 0 ? value + n : value; }

}  // namespace

absl::StatusOr<std::vector<SliceDim>> SliceGeometry(const SliceAttrs& attrs,
                                                    const Shape& input) {
  const int rank = input.rank();
  std::vector<SliceDim> dims(rank);
  for (int d = 0; d < rank; ++d) dims[d] = {0, 1, input.dim(d)};
  const std::vector<int64_t> axes = attrs.AxesOrDefault();
  const std::vector<int64_t> steps = attrs.StepsOrDefault();
  if (attrs.ends.size() != attrs.starts.size() ||
      axes.size() != attrs.starts.size() ||
      steps.size() != attrs.starts.size()) {
    return absl::InvalidArgumentError(
        "attributes 'starts', 'ends', 'axes' and 'steps' must have the same "
        "length");
  }
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t axis = axes[k];
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'axes' entry ", axis, " is out of range [", -rank, ", ",
          rank - 1, "] for input ", input.ToString()));
    }
    const int d = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'axes' [", absl::StrJoin(axes, ", "), "] names dim ", d,
          " twice"));
    }
    seen[d] = true;
    const int64_t n = input.dim(d);
    const int64_t step = steps[k];
    if (step == 0) {
      return absl::InvalidArgumentError("attribute 'steps' has a 0");
    }
    int64_t start = Wrap(attrs.starts[k], n);
    int64_t end = Wrap(attrs.ends[k], n);
    int64_t count = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, n);
      end = std::clamp<int64_t>(end, 0, n);
      const int64_t span = end - start;
      if (span > 0) count = span / step + (span % step != 0);
    } else {
      start = std::clamp<int64_t>(start, 0, std::max<int64_t>(n - 1, 0));
      end = std::clamp<int64_t>(end, -1, n - 1);
      const int64_t span = start - end;
      // -step cannot overflow: -INT64_MIN is out of reach once span <= n.
      if (span > 0 && n > 0) {
        count = step == INT64_MIN ? 1 : span / -step + (span % -step != 0);
      }
    }
    dims[d] = {count == 0 ? 0 : start, step, count};
  }
  return dims;
}

absl::StatusOr<Shape> PadOutputShape(const PadAttrs& attrs,
                                     const Shape& input) {
  const int rank = input.rank();
  if (attrs.pads.size() != 2 * static_cast<size_t>(rank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'pads' must have 2 * rank = ", 2 * rank,
        " values (all begins, then all ends) for input ", input.ToString(),
        ", got ", attrs.pads.size()));
  }
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t begin = attrs.pads[d], end = attrs.pads[rank + d];
    if (std::abs(begin) > kMaxPad || std::abs(end) > kMaxPad) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'pads' values must be within +-", kMaxPad, ", got ",
          begin, " and ", end, " for dim ", d));
    }
    const int64_t n = input.dim(d);
    dims[d] = n + begin + end;
    if (dims[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'pads' removes more than dim ", d, " of input ",
          input.ToString(), " has: ", n, " + ", begin, " + ", end, " < 0"));
    }
    if (attrs.mode != PadMode::kConstant && n == 0 && dims[d] > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pad mode ", PadModeName(attrs.mode), " cannot fill dim ", d,
          " of input ", input.ToString(),
          ": it is empty, so there is no element to copy (use mode "
          "constant)"));
    }
  }
  absl::StatusOr<Shape> shape = Shape::Create(dims, 1);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the padded shape is invalid: ", shape.status().message()));
  }
  return shape;
}

absl::Status GatherIndexError(int64_t value, int64_t position,
                              const Shape& indices, int64_t n, int axis) {
  std::vector<int64_t> index(indices.rank());
  for (int d = indices.rank() - 1; d >= 0; --d) {
    if (indices.dim(d) == 0) break;
    index[d] = position % indices.dim(d);
    position /= indices.dim(d);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "gather: index ", value, " at indices[", absl::StrJoin(index, ", "),
      "] is out of range for data's axis ", axis, " of length ", n,
      n > 0 ? absl::StrCat(" (valid: ", -n, " to ", n - 1, ")")
            : std::string(" (no index is valid)")));
}

}  // namespace switchyard
