// The unary elementwise ops (ops/unary_functors.h's SY_UNARY_ELEMENTWISE_OPS),
// one kernel template over the functors: float32 and float64 run the Eigen
// array forms of elementwise_arrays.h (Eigen's vectorised exp, tanh and erf;
// NaN-propagating bounds), integers and any functor without an array form
// its scalar formula in a loop. Attributes are rounded to the tensor's
// dtype once, when the kernel is made. Large tensors are split across the
// context's threads.

#include <cstdint>
#include <memory>
#include <type_traits>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/elementwise_arrays.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/functor_attrs.h"
#include "ops/unary_functors.h"

namespace switchyard {
namespace cpu {
namespace {

// out[0, n) = f(in[0, n)).
template <typename F, typename T>
void Apply(const F& f, const T* in, T* out, int64_t n) {
  if constexpr (kHasUnaryArray<F, T>) {
    Eigen::Map<Array<T>>(out, n) =
        UnaryArray(f, Eigen::Map<const Array<T>>(in, n));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
  }
}

template <typename F, typename T>
class UnaryKernel : public Kernel {
 public:
  UnaryKernel(std::shared_ptr<const CpuContext> context, F f)
      : context_(std::move(context)), f_(f) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const T* in = inputs[0]->data<T>();
    T* out = outputs[0]->data<T>();
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   Apply(f_, in + begin, out + begin, end - begin);
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  F f_;
};

template <template <typename> class Functor, typename Attrs, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node,
                                                  const Graph&,
                                                  CpuDevice& device) {
  using F = Functor<T>;
  SY_ASSIGN_OR_RETURN(F f, (FunctorFromAttrs<F, Attrs>(node.attrs)));
  return std::make_unique<UnaryKernel<F, T>>(device.context(), f);
}

template <template <typename> class Functor, typename Attrs, typename... Ts>
bool RegisterUnary(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(CpuKernels(), op, [](auto tag) {
    return &MakeUnary<Functor, Attrs, typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_UNARY(op, Functor, Types, flops, Attrs) \
  ok &= RegisterUnary<unary::Functor, Attrs>(op, Types{});
  SY_UNARY_ELEMENTWISE_OPS(SY_REGISTER_UNARY)
#undef SY_REGISTER_UNARY
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace cpu
}  // namespace switchyard
