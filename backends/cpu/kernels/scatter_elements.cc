// scatter_elements: every index is checked and wrapped first (an
// out-of-range one is InvalidArgument, ops/gather_scatter_geometry.h, and
// nothing is written); then the output is a copy of data, and updates land
// one by one in indices' row-major order (so duplicates combine, or the
// last one wins, as the reference does), each at the index's offset along
// the axis plus the other coordinates' (a running multi-index).

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
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
class ScatterElementsKernel : public Kernel {
 public:
  explicit ScatterElementsKernel(const ScatterElementsAttrs& attrs) : attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Shape& shape = data.shape();
    const int rank = shape.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const int64_t n = shape.dim(axis);
    std::vector<int64_t> index(indices.num_elements());
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t v = indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                                         : indices.data<int32_t>()[k];
      index[k] = WrapIndex(v, n);
      if (index[k] < 0) {
        return IndexOutOfRange("scatter_elements", indices.shape(), k, v, axis, n);
      }
    }
    T* out = outputs[0]->data<T>();
    if (data.num_elements() > 0) {
      std::memcpy(out, data.data<T>(), data.num_elements() * sizeof(T));
    }
    const T* updates = inputs[2]->data<T>();
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim(d + 1);
    std::vector<int64_t> coord(rank, 0);  // of the current index in indices
    int64_t base = 0;  // output offset of coord, without the axis' term
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      ApplyUpdate(attrs_.reduction, out[base + index[k] * strides[axis]], updates[k]);
      for (int d = rank - 1; d >= 0; --d) {  // the next coord
        if (++coord[d] < indices.shape().dim(d)) {
          if (d != axis) base += strides[d];
          break;
        }
        if (d != axis) base -= (coord[d] - 1) * strides[d];
        coord[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  ScatterElementsAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeScatterElements(const Node& node,
                                                            const Graph& graph,
                                                            CpuDevice&) {
  SY_ASSIGN_OR_RETURN(ScatterElementsAttrs attrs,
                      ScatterElementsAttrs::FromAttrMap(node.attrs));
  return WithScatterType(
      graph.value(node.inputs[0]).dtype, attrs.reduction, "scatter_elements",
      [&](auto tag) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return std::make_unique<ScatterElementsKernel<typename decltype(tag)::type>>(
            attrs);
      });
}

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "scatter_elements", &MakeScatterElements);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
