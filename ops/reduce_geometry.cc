#include "ops/reduce_geometry.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

absl::StatusOr<std::vector<bool>> ReducedAxes(const std::vector<int64_t>& axes,
                                              const Shape& input) {
  const int rank = input.rank();
  std::vector<bool> reduced(rank, axes.empty());
  const int64_t wrap = std::max(rank, 1);
  std::vector<bool> seen(wrap, false);
  for (int64_t axis : axes) {
    if (axis < -wrap || axis >= wrap) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'axes' [", absl::StrJoin(axes, ", "),
                       "] has ", axis, ", out of range [", -wrap, ", ",
                       wrap - 1, "] for input of rank ", rank));
    }
    const int64_t a = axis < 0 ? axis + wrap : axis;
    if (seen[a]) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'axes' [", absl::StrJoin(axes, ", "),
                       "] names axis ", a, " twice; give each axis once"));
    }
    seen[a] = true;
    if (rank > 0) reduced[a] = true;
  }
  return reduced;
}

Shape ReducedShape(const Shape& input, const std::vector<bool>& reduced,
                   bool keepdims) {
  std::vector<int64_t> dims;
  for (int d = 0; d < input.rank(); ++d) {
    if (!reduced[d]) {
      dims.push_back(input.dim(d));
    } else if (keepdims) {
      dims.push_back(1);
    }
  }
  return Shape(std::move(dims));
}

int64_t ReducedCount(const Shape& input, const std::vector<bool>& reduced) {
  int64_t count = 1;
  for (int d = 0; d < input.rank(); ++d) {
    if (reduced[d]) count *= input.dim(d);
  }
  return count;
}

std::vector<ReducePass> ReducePasses(const Shape& input,
                                     const std::vector<bool>& reduced) {
  // Runs of axes of one kind; an axis of length 1 changes nothing either
  // way, so it joins whatever run it is in as kept.
  struct Run {
    int64_t size;
    bool reduced;
  };
  std::vector<Run> runs;
  for (int d = 0; d < input.rank(); ++d) {
    if (input.dim(d) == 1) continue;
    const bool r = reduced[d];
    if (!runs.empty() && runs.back().reduced == r) {
      runs.back().size *= input.dim(d);
    } else {
      runs.push_back({input.dim(d), r});
    }
  }
  std::vector<ReducePass> passes;
  for (int i = static_cast<int>(runs.size()) - 1; i >= 0; --i) {
    if (!runs[i].reduced) continue;
    int64_t outer = 1, inner = 1;
    for (int j = 0; j < i; ++j) outer *= runs[j].size;
    // The runs after i that are reduced are gone already.
    for (size_t j = i + 1; j < runs.size(); ++j) {
      if (!runs[j].reduced) inner *= runs[j].size;
    }
    passes.push_back({outer, runs[i].size, inner});
  }
  return passes;
}

}  // namespace switchyard
