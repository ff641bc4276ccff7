// The binary arithmetic ops (ops/binary_functors.h's
// SY_BINARY_ELEMENTWISE_OPS) with numpy broadcasting, one kernel template
// over the functors. Floating types: the Eigen array forms of
// elementwise_arrays.h over whole runs (a same-shape pair is one run; a
// broadcast operand is a constant or a re-read row within a run). Integer
// types: the functors' scalar formulas, which wrap on overflow; operands
// without an integer result (a division by zero, 0 to a negative power)
// are InvalidArgument. Large outputs are split across the context's threads.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/elementwise_arrays.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/binary_functors.h"
#include "ops/broadcast.h"
#include "ops/functor_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

// Whether F declares operands without a result (F::NoValue, F::kNoValue).
template <typename F, typename = void>
struct HasNoValue : std::false_type {};
template <typename F>
struct HasNoValue<F, std::void_t<decltype(F::kNoValue)>> : std::true_type {};

// out[0, count) from a run of the two operands; strides 0 or 1 (after
// BroadcastLayout's merging the innermost stride is one of those). Sets
// `bad` for operands without a result.
template <typename T, typename F>
void RunOf(const F& f, const T* a, int64_t stride_a, const T* b,
           int64_t stride_b, T* out, int64_t count, bool& bad) {
  if constexpr (kHasBinaryArrays<F, T>) {
    using Map = Eigen::Map<const Array<T>>;
    Eigen::Map<Array<T>> o(out, count);
    if (stride_a == 1 && stride_b == 1) {
      o = BinaryArrays(f, Map(a, count), Map(b, count));
      return;
    }
    if (stride_a == 0 && stride_b == 1) {
      o = BinaryArrays(f, Array<T>::Constant(count, *a), Map(b, count));
      return;
    }
    if (stride_a == 1 && stride_b == 0) {
      // x^2 with a constant exponent (LayerNorm's variance as exported
      // below opset 17) as one multiply: the same correctly rounded value
      // as pow, at a fraction of its cost.
      if constexpr (std::is_same_v<F, binary::Pow<T>>) {
        if (*b == T(2)) {
          o = Map(a, count).square();
          return;
        }
      }
      o = BinaryArrays(f, Map(a, count), Array<T>::Constant(count, *b));
      return;
    }
  }
  bool local_bad = false;
  for (int64_t i = 0; i < count; ++i) {
    const T x = a[i * stride_a], y = b[i * stride_b];
    if constexpr (HasNoValue<F>::value) local_bad |= F::NoValue(x, y);
    out[i] = f(x, y);
  }
  if (local_bad) bad = true;
}

template <typename T, typename F>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(std::shared_ptr<const CpuContext> context, std::string op,
               F f, BroadcastLayout layout)
      : context_(std::move(context)),
        op_(std::move(op)),
        f_(f),
        layout_(std::move(layout)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const T* a = inputs[0]->data<T>();
    const T* b = inputs[1]->data<T>();
    T* out = outputs[0]->data<T>();
    const int64_t n = outputs[0]->num_elements();
    std::atomic<bool> any_bad{false};
    ForEachRange(*context_, n, [&](int64_t begin, int64_t end) {
      bool bad = false;
      if (layout_.SameShape()) {
        RunOf<T>(f_, a + begin, 1, b + begin, 1, out + begin, end - begin, bad);
      } else {
        ForEachBroadcastRun(layout_, begin, end,
                            [&](int64_t o, const int64_t* offsets,
                                const int64_t* strides, int64_t count) {
                              RunOf<T>(f_, a + offsets[0], strides[0],
                                       b + offsets[1], strides[1], out + o,
                                       count, bad);
                            });
      }
      if (bad) any_bad = true;
    });
    if constexpr (HasNoValue<F>::value) {
      if (any_bad) {
        return absl::InvalidArgumentError(absl::StrCat(
            op_, " (", DTypeName(DTypeOf<T>()), "): ", F::kNoValue,
            "; integer ", op_, " has no value for it (cast to float32 to get "
            "inf)"));
      }
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  std::string op_;
  F f_;
  BroadcastLayout layout_;
};

template <template <typename> class Functor, typename Attrs, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  using F = Functor<T>;
  SY_ASSIGN_OR_RETURN(F f, (FunctorFromAttrs<F, Attrs>(node.attrs)));
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout,
                      BinaryBroadcastLayout(node, graph));
  return std::make_unique<BinaryKernel<T, F>>(device.context(), node.op, f,
                                              std::move(layout));
}

template <template <typename> class Functor, typename Attrs, typename... Ts>
bool RegisterBinary(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(CpuKernels(), op, [](auto tag) {
    return &MakeBinary<Functor, Attrs, typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_BINARY(op, Functor, Types, flops, Attrs) \
  ok &= RegisterBinary<binary::Functor, Attrs>(op, Types{});
  SY_BINARY_ELEMENTWISE_OPS(SY_REGISTER_BINARY)
#undef SY_REGISTER_BINARY
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace cpu
}  // namespace switchyard
