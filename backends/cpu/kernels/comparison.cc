// The comparisons (ops/comparison_functors.h's SY_COMPARISON_OPS) with numpy
// broadcasting into bool bytes, one kernel template over the functors and
// element types: one loop over the output along the runs of ops/broadcast.h's
// BroadcastLayout (a same-shape pair is one run). Large outputs are split
// across the context's threads.

#include <cstdint>
#include <memory>
#include <utility>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/broadcast.h"
#include "ops/comparison_functors.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T, typename F>
class ComparisonKernel : public Kernel {
 public:
  ComparisonKernel(std::shared_ptr<const CpuContext> context, BroadcastLayout layout)
      : context_(std::move(context)), layout_(std::move(layout)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    using S = compare::Stored<T>;
    const S* a = inputs[0]->data<S>();
    const S* b = inputs[1]->data<S>();
    uint8_t* out = outputs[0]->data<uint8_t>();
    const F f;
    ForEachRange(*context_, outputs[0]->num_elements(), [&](int64_t begin, int64_t end) {
      if (layout_.SameShape()) {
        for (int64_t i = begin; i < end; ++i) out[i] = f(a[i], b[i]);
        return;
      }
      ForEachBroadcastRun(layout_, begin, end,
                          [&](int64_t o, const int64_t* offsets, const int64_t* strides,
                              int64_t count) {
                            const S* x = a + offsets[0];
                            const S* y = b + offsets[1];
                            for (int64_t i = 0; i < count; ++i) {
                              out[o + i] = f(x[i * strides[0]], y[i * strides[1]]);
                            }
                          });
    });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  BroadcastLayout layout_;
};

template <template <typename> class Functor, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeComparison(const Node& node, const Graph& graph,
                                                       CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout, BinaryBroadcastLayout(node, graph));
  return std::make_unique<ComparisonKernel<T, Functor<T>>>(device.context(),
                                                           std::move(layout));
}

template <template <typename> class Functor, typename... Ts>
bool RegisterComparison(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(CpuKernels(), op, [](auto tag) {
    return &MakeComparison<Functor, typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_COMPARISON(op, Functor) \
  ok &= RegisterComparison<compare::Functor>(op, ComparableTypes{});
  SY_COMPARISON_OPS(SY_REGISTER_COMPARISON)
#undef SY_REGISTER_COMPARISON
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace cpu
}  // namespace switchyard
