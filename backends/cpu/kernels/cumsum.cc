// cumsum: the input as [outer, n, inner] around the axis; each (o, j)
// walks its n elements once (from the end when reversed), keeping the sum
// in the element type (as numpy; integers wrap). Columns are split across
// the context's threads when there are many.

#include <cstdint>
#include <memory>
#include <type_traits>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/axis_view.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/cumsum_attrs.h"
#include "ops/kernel_lists.h"
#include "ops/wrapping_arithmetic.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T>
class CumSumKernel : public Kernel {
 public:
  CumSumKernel(const CumSumAttrs& attrs, const CpuDevice& device)
      : attrs_(attrs), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const AxisView view = AroundAxis(inputs[0]->shape(), attrs_.axis);
    const int64_t n = view.n, inner = view.inner;
    const T* x = inputs[0]->data<T>();
    T* y = outputs[0]->data<T>();
    ForEachLine(*context_, view, [&](int64_t, int64_t base) {
      T sum = T(0);
      for (int64_t step = 0; step < n; ++step) {
        const int64_t k = attrs_.reverse ? n - 1 - step : step;
        const T v = x[base + k * inner];
        if (!attrs_.exclusive) sum = Add(sum, v);
        y[base + k * inner] = sum;
        if (attrs_.exclusive) sum = Add(sum, v);
      }
    });
    return absl::OkStatus();
  }

 private:
  static T Add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return wrapping::Add(a, b);
    } else {
      return a + b;
    }
  }

  CumSumAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeCumSum(const Node& node, const Graph& graph,
                                                   CpuDevice& device) {
  return MakeKernelWithAttrs<CumSumKernel<T>, CumSumAttrs, CpuDevice>(node, graph,
                                                                      device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "cumsum", MakeCumSum, SY_CUMSUM_TYPES);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
