#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_

// What softmax and log_softmax share: the input along `dim` seen as [outer,
// n, inner], each of the outer * inner rows normalized on its own, threaded
// for large tensors, and the kernel around a row function:
//
//   void SoftmaxRow(const float* in, float* out, int64_t base, int64_t n,
//                   int64_t inner);
//   SY_REGISTER_KERNEL(CpuKernels(), "softmax", DType::kFloat32,
//                      &MakeSoftmaxRowsKernel<&SoftmaxRow>);

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/graph.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/tensor.h"
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

// Normalizes row (base, n, inner) of `in` into `out`, as ForEachSoftmaxRow
// hands it out.
using SoftmaxRowFn = void (*)(const float* in, float* out, int64_t base,
                              int64_t n, int64_t inner);

// A float32 kernel that runs `Row` on every row along `dim`.
template <SoftmaxRowFn Row>
class SoftmaxRowsKernel : public Kernel {
 public:
  SoftmaxRowsKernel(int dim, std::shared_ptr<const CpuContext> context)
      : dim_(dim), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    ForEachSoftmaxRow(inputs[0]->shape(), dim_, *context_,
                      [&](int64_t base, int64_t n, int64_t inner) {
                        Row(in, out, base, n, inner);
                      });
    return absl::OkStatus();
  }

 private:
  int dim_;
  std::shared_ptr<const CpuContext> context_;
};

template <SoftmaxRowFn Row>
absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmaxRowsKernel(
    const Node& node, const Graph& graph, CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(const int dim, SoftmaxDim(node, graph));
  return std::make_unique<SoftmaxRowsKernel<Row>>(dim, device.context());
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_SOFTMAX_ROWS_H_
