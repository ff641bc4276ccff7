#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_AXIS_VIEW_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_AXIS_VIEW_H_

// A tensor seen as [outer, n, inner] around one axis, for the kernels that
// work along an axis (argmax/argmin, cumsum, topk, gather, one_hot): element
// (o, k, j) is at (o * n + k) * inner + j. One place for the negative-axis
// rule, the products and the walk over lines, which those kernels spelled
// out each.

#include <cstdint>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

struct AxisView {
  int axis;           // in [0, rank)
  int64_t outer = 1;  // the product of the dims before it
  int64_t n;          // its size
  int64_t inner = 1;  // the product of the dims after it
};

// `axis` may be negative (counted from the end), as the ops' attrs allow.
inline AxisView AroundAxis(const Shape& shape, int64_t axis) {
  AxisView view;
  view.axis = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
  for (int d = 0; d < view.axis; ++d) view.outer *= shape.dim(d);
  view.n = shape.dim(view.axis);
  for (int d = view.axis + 1; d < shape.rank(); ++d) view.inner *= shape.dim(d);
  return view;
}

// Calls fn(line, first) for each of the outer * inner lines along the axis,
// `first` the offset of its element k = 0 (its others follow `inner`
// apart); lines are split across the context's threads when there are many.
template <typename Fn>
void ForEachLine(const CpuContext& context, const AxisView& view, Fn fn) {
  const int64_t n = view.n, inner = view.inner;
  ForEachRange(context, view.outer * inner, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) fn(r, (r / inner) * n * inner + r % inner);
  });
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_AXIS_VIEW_H_
