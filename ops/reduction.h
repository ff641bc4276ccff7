#ifndef SWITCHYARD_OPS_REDUCTION_H_
#define SWITCHYARD_OPS_REDUCTION_H_

// What the cpu and reference kernels of the reduce_* ops share: the kinds
// (named by ops/kernel_lists.h's SY_REDUCE_KERNELS), where each starts, so
// that the two agree on what an empty reduction gives, and the axes a node
// reduces.

#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {

enum class Reduction { kSum, kMean, kMax, kMin, kProd };

// The identity of `kind` in T: -inf (max) and +inf (min), or T's lowest and
// highest where T has no infinity; 1 (prod); 0 (sum and mean).
template <typename T>
T ReductionIdentity(Reduction kind) {
  using Limits = std::numeric_limits<T>;
  switch (kind) {
    case Reduction::kMax:
      return Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
    case Reduction::kMin:
      return Limits::has_infinity ? Limits::infinity() : Limits::max();
    case Reduction::kProd:
      return T(1);
    default:
      return T(0);
  }
}

// The axes a reduce_* node reduces, from its attrs (ReduceAttrs' error when
// they are bad) and its input's shape.
inline absl::StatusOr<std::vector<bool>> ReducedAxesOf(const Node& node,
                                                       const Graph& graph) {
  absl::StatusOr<ReduceAttrs> attrs = ReduceAttrs::FromAttrMap(node.attrs, node.op);
  if (!attrs.ok()) return attrs.status();
  return ReducedAxes(attrs->axes, *graph.value(node.inputs[0]).shape);
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCTION_H_
