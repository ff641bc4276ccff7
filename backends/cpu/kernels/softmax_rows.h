#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_

// What softmax and log_softmax share: the input along `dim` seen as [outer,
// n, inner], each of the outer * inner rows normalized on its own, threaded
// for large tensors.

#include <cstdint>

#include "absl/status/statusor.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/graph.h"
#include "core/shape.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace cpu {

// Calls row(base, n, inner) for every row: element i of the row is at
// base + i * inner. Nothing for an empty tensor.
template <typename Row>
void ForEachSoftmaxRow(const Shape& shape, int dim, const CpuContext& context,
                       Row row) {
  if (shape.num_elements() == 0) return;  // outer * inner alone may be huge
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= shape.dim(d);
  for (int d = dim + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  const int64_t n = shape.dim(dim);
  auto rows = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      row((r / inner) * n * inner + r % inner, n, inner);
    }
  };
  if (outer * inner * n < kMinParallelElements) {
    rows(0, outer * inner);
  } else {
    context.ParallelRange(outer * inner, rows);
  }
}

// The node's `dim` attribute, negative values counted from the end.
inline absl::StatusOr<int> SoftmaxDim(const Node& node, const Graph& graph) {
  absl::StatusOr<SoftmaxAttrs> attrs = SoftmaxAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const int rank = graph.value(node.inputs[0]).shape->rank();
  return static_cast<int>(attrs->dim < 0 ? attrs->dim + rank : attrs->dim);
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_
