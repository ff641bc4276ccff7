// scatter_nd: every tuple entry is checked and wrapped first (an
// out-of-range one is InvalidArgument, ops/gather_scatter_geometry.h, and
// nothing is written) into each tuple's slice offset; then the output is a
// copy of data, and each tuple's slice of updates lands on its slice, tuple
// by tuple in order (so duplicates combine, or the last one wins, as the
// reference does). Both the copy and the updates are split over the
// threads by element: each thread takes one range of every slice and walks
// the tuples in order, so duplicates still land in order.

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/scatter_update.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T>
class ScatterNdKernel : public Kernel {
 public:
  ScatterNdKernel(const ScatterNdAttrs& attrs, std::shared_ptr<const CpuContext> context)
      : attrs_(attrs), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Shape& shape = data.shape();
    const int64_t m = indices.shape().dim(indices.shape().rank() - 1);
    int64_t slice = 1;
    for (int d = static_cast<int>(m); d < shape.rank(); ++d) slice *= shape.dim(d);
    const int64_t tuples = indices.num_elements() / m;  // m >= 1
    std::vector<int64_t> rows(tuples, 0);  // each tuple's slice, in slices
    for (int64_t t = 0; t < tuples; ++t) {
      for (int64_t k = 0; k < m; ++k) {
        const int64_t p = t * m + k;
        const int64_t v = indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[p]
                                                           : indices.data<int32_t>()[p];
        const int axis = static_cast<int>(k);
        const int64_t i = WrapIndex(v, shape.dim(axis));
        if (i < 0) {
          return IndexOutOfRange("scatter_nd", indices.shape(), p, v, axis, shape.dim(axis));
        }
        rows[t] = rows[t] * shape.dim(axis) + i;
      }
    }
    T* out = outputs[0]->data<T>();
    const T* in = data.data<T>();
    if (data.num_elements() > 0) {
      ForEachRange(*context_, data.num_elements(), [&](int64_t begin, int64_t end) {
        std::memcpy(out + begin, in + begin, (end - begin) * sizeof(T));
      });
    }
    const T* updates = inputs[2]->data<T>();
    const auto scatter = [&](int64_t begin, int64_t end) {
      for (int64_t t = 0; t < tuples; ++t) {
        T* dst = out + rows[t] * slice;
        const T* src = updates + t * slice;
        for (int64_t j = begin; j < end; ++j) ApplyUpdate(attrs_.reduction, dst[j], src[j]);
      }
    };
    if (tuples * slice < kMinParallelElements) {
      scatter(0, slice);
    } else {
      context_->ParallelRange(slice, scatter);
    }
    return absl::OkStatus();
  }

 private:
  ScatterNdAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeScatterNd(const Node& node, const Graph& graph,
                                                      CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(ScatterNdAttrs attrs, ScatterNdAttrs::FromAttrMap(node.attrs));
  return WithScatterType(
      graph.value(node.inputs[0]).dtype, attrs.reduction, "scatter_nd",
      [&](auto tag) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return std::make_unique<ScatterNdKernel<typename decltype(tag)::type>>(
            attrs, device.context());
      });
}

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "scatter_nd", &MakeScatterNd);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
