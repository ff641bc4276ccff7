#ifndef SWITCHYARD_OPS_REDUCE_GEOMETRY_H_
#define SWITCHYARD_OPS_REDUCE_GEOMETRY_H_

// The shape arithmetic of the reduce ops, shared by shape inference and
// every backend's kernels: which axes reduce, the output shape, and the
// reduction as a few passes over [outer, n, inner] views, which any kernel
// runs with one simple loop nest.
//
//   absl::StatusOr<std::vector<bool>> r = ReducedAxes({0, 2}, Shape({2, 3,
//   4})); ReducedShape(Shape({2, 3, 4}), *r, /*keepdims=*/false) == Shape({3})
//   ReducePasses(Shape({2, 3, 4}), *r)
//       == {{6, 4, 1}, {1, 2, 3}}   // the last axis, then the first

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shape.h"

namespace switchyard {

// Which axes of `input` are reduced: axes[i] (negative from the end), or
// every axis when `axes` is empty. A rank-0 input counts as rank 1 for
// wrapping, as in PyTorch, and has nothing to reduce. InvalidArgument for an
// axis out of range or given twice.
absl::StatusOr<std::vector<bool>> ReducedAxes(const std::vector<int64_t>& axes,
                                              const Shape& input);

// The output: `input` with each reduced axis 1 (keepdims) or removed.
Shape ReducedShape(const Shape& input, const std::vector<bool>& reduced,
                   bool keepdims);

// How many input elements reduce into each output element.
int64_t ReducedCount(const Shape& input, const std::vector<bool>& reduced);

// One pass: the data as [outer, n, inner], reduced over n into
// [outer, inner].
struct ReducePass {
  int64_t outer, n, inner;
  friend bool operator==(const ReducePass& a, const ReducePass& b) {
    return a.outer == b.outer && a.n == b.n && a.inner == b.inner;
  }
};

// The reduction as passes, each reading the previous one's output (the
// first reads the input; the last writes the output). Adjacent reduced
// axes merge into one pass and axes of length 1 need none, so a reduction
// over one block of axes is one pass, and a reduction with nothing to do is
// none (the output is a copy of the input). Passes run from the last group
// of axes to the first.
std::vector<ReducePass> ReducePasses(const Shape& input,
                                     const std::vector<bool>& reduced);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCE_GEOMETRY_H_
