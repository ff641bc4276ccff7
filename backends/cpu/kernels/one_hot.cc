// one_hot: the output as [outer, depth, inner] around the new dim; every
// element gets the off value, then each index's class (ops/
// one_hot_geometry.h) gets the on value. Elements are moved as bytes, so
// one kernel per indices dtype serves every values dtype.

#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/axis_view.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/kernel_lists.h"
#include "ops/one_hot_attrs.h"
#include "ops/one_hot_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename Index>
class OneHotKernel : public Kernel {
 public:
  OneHotKernel(const OneHotAttrs& attrs, const CpuDevice&) : attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& indices = *inputs[0];
    const Tensor& values = *inputs[1];
    Tensor& out = *outputs[0];
    const int64_t inner = AroundAxis(out.shape(), attrs_.axis).inner;
    const int64_t depth = attrs_.depth;
    const size_t size = DTypeSize(values.dtype());
    const char* off = values.data<char>();
    const char* on = off + size;
    char* y = out.data<char>();
    for (int64_t i = 0; i < out.num_elements(); ++i) std::memcpy(y + i * size, off, size);
    const Index* x = indices.data<Index>();
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t c = OneHotClass(x[k], depth);
      if (c < 0) continue;
      const int64_t o = k / inner, j = k % inner;
      std::memcpy(y + ((o * depth + c) * inner + j) * size, on, size);
    }
    return absl::OkStatus();
  }

 private:
  OneHotAttrs attrs_;
};

template <typename Index>
absl::StatusOr<std::unique_ptr<Kernel>> MakeOneHot(const Node& node, const Graph& graph,
                                                   CpuDevice& device) {
  return MakeKernelWithAttrs<OneHotKernel<Index>, OneHotAttrs, CpuDevice>(node, graph,
                                                                          device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "one_hot", MakeOneHot,
                             SY_ONE_HOT_INDEX_TYPES);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
