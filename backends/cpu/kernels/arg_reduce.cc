// argmax and argmin: the input as [outer, n, inner] around the axis; each
// output (o, j) scans its n elements, a stride of `inner` apart. The
// outputs are split across the context's threads when there are many.

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/axis_view.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/kernel_lists.h"
#include "ops/reduce_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T>
bool IsNaN(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename T, bool kMax>
class ArgReduceKernel : public Kernel {
 public:
  ArgReduceKernel(const ArgReduceAttrs& attrs, const CpuDevice& device)
      : attrs_(attrs), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const AxisView view = AroundAxis(inputs[0]->shape(), attrs_.axis);
    const int64_t n = view.n, inner = view.inner;
    const T* x = inputs[0]->data<T>();
    int64_t* out = outputs[0]->data<int64_t>();
    const bool last = attrs_.select_last_index;
    ForEachLine(*context_, view, [&](int64_t r, int64_t first) {
      const T* p = x + first;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T v = p[k * inner], b = p[best * inner];
        // A NaN beats numbers; two NaNs tie.
        const bool tie = v == b || (IsNaN(v) && IsNaN(b));
        const bool beats = !IsNaN(b) && (IsNaN(v) || (kMax ? v > b : v < b));
        if (beats || (last && tie)) best = k;
      }
      out[r] = best;
    });
    return absl::OkStatus();
  }

 private:
  ArgReduceAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

template <bool kMax>
bool RegisterTypes(const char* op) {
  return RegisterForTypes<SY_ARG_REDUCE_TYPES>(
      CpuKernels(), op, [](auto tag) {
        using K = ArgReduceKernel<typename decltype(tag)::type, kMax>;
        return &MakeKernelWithAttrs<K, ArgReduceAttrs, CpuDevice>;
      });
}

[[maybe_unused]] const bool kRegistered =
    RegisterTypes<true>("argmax") && RegisterTypes<false>("argmin");

}  // namespace
}  // namespace cpu
}  // namespace switchyard
