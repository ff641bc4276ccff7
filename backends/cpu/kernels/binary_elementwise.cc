// add, sub, mul, div, pow with numpy broadcasting. Floating types: Eigen
// array expressions over whole runs (a same-shape pair is one run; a
// broadcast operand is a constant or a re-read row within a run). Integer
// types: loops that wrap on overflow (elementwise_family.h); an integer
// division by zero (or 0 to a negative power) is InvalidArgument.
// Large outputs are split across the context's threads.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/elementwise_family.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cpu {
namespace {

// Each op: Arrays (Eigen expressions, floating types) and Scalar (any type;
// sets `bad` for an integer division by zero).
struct Add {
  template <typename X, typename Y>
  static auto Arrays(const X& x, const Y& y) { return x + y; }
  template <typename T>
  static T Scalar(T a, T b, bool&) {
    if constexpr (std::is_integral_v<T>) return wrapping::Add(a, b);
    return a + b;
  }
};
struct Sub {
  template <typename X, typename Y>
  static auto Arrays(const X& x, const Y& y) { return x - y; }
  template <typename T>
  static T Scalar(T a, T b, bool&) {
    if constexpr (std::is_integral_v<T>) return wrapping::Sub(a, b);
    return a - b;
  }
};
struct Mul {
  template <typename X, typename Y>
  static auto Arrays(const X& x, const Y& y) { return x * y; }
  template <typename T>
  static T Scalar(T a, T b, bool&) {
    if constexpr (std::is_integral_v<T>) return wrapping::Mul(a, b);
    return a * b;
  }
};
struct Div {
  template <typename X, typename Y>
  static auto Arrays(const X& x, const Y& y) { return x / y; }
  template <typename T>
  static T Scalar(T a, T b, bool& bad) {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) {
        bad = true;
        return 0;
      }
      return wrapping::Div(a, b);
    }
    return a / b;
  }
};
struct Pow {
  template <typename X, typename Y>
  static auto Arrays(const X& x, const Y& y) {
    using T = typename X::Scalar;
    return x.binaryExpr(y, [](T a, T b) { return std::pow(a, b); });
  }
  template <typename T>
  static T Scalar(T a, T b, bool& bad) {
    if constexpr (std::is_integral_v<T>) {
      if (a == 0 && b < 0) {
        bad = true;
        return 0;
      }
      return wrapping::Pow(a, b);
    }
    return std::pow(a, b);
  }
};

// out[0, count) from a run of the two operands; strides 0 or 1 (after
// BroadcastLayout's merging the innermost stride is one of those).
template <typename T, typename Op>
void RunOf(const T* a, int64_t stride_a, const T* b, int64_t stride_b, T* out,
           int64_t count, bool& bad) {
  if constexpr (std::is_floating_point_v<T>) {
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    using Map = Eigen::Map<const Array>;
    Eigen::Map<Array> o(out, count);
    if (stride_a == 1 && stride_b == 1) {
      o = Op::Arrays(Map(a, count), Map(b, count));
      return;
    }
    if (stride_a == 0 && stride_b == 1) {
      o = Op::Arrays(Array::Constant(count, *a), Map(b, count));
      return;
    }
    if (stride_a == 1 && stride_b == 0) {
      o = Op::Arrays(Map(a, count), Array::Constant(count, *b));
      return;
    }
  }
  bool local_bad = false;
  for (int64_t i = 0; i < count; ++i) {
    out[i] = Op::Scalar(a[i * stride_a], b[i * stride_b], local_bad);
  }
  if (local_bad) bad = true;
}

template <typename T, typename Op>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(std::shared_ptr<const CpuContext> context, std::string op,
               BroadcastLayout layout)
      : context_(std::move(context)),
        op_(std::move(op)),
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
        RunOf<T, Op>(a + begin, 1, b + begin, 1, out + begin, end - begin, bad);
      } else {
        ForEachBroadcastRun(layout_, begin, end,
                            [&](int64_t o, const int64_t* offsets,
                                const int64_t* strides, int64_t count) {
                              RunOf<T, Op>(a + offsets[0], strides[0],
                                           b + offsets[1], strides[1], out + o,
                                           count, bad);
                            });
      }
      if (bad) any_bad = true;
    });
    if (any_bad) {
      return absl::InvalidArgumentError(absl::StrCat(
          op_, " (", DTypeName(DTypeOf<T>()), "): ",
          op_ == "div" ? "integer division by zero"
                       : "0 to a negative integer power",
          "; integer ", op_, " has no value for it (cast to float32 to get "
          "inf)"));
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  std::string op_;
  BroadcastLayout layout_;
};

template <typename T, typename Op>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  const std::optional<Shape>& a = graph.value(node.inputs[0]).shape;
  const std::optional<Shape>& b = graph.value(node.inputs[1]).shape;
  const std::optional<Shape>& out = graph.value(node.outputs[0]).shape;
  if (!a || !b || !out) {
    return absl::InternalError(absl::StrCat(
        "node '", node.name, "': operand or output shape unknown; shape "
        "inference must run before lowering"));
  }
  return std::make_unique<BinaryKernel<T, Op>>(
      device.context(), node.op, BroadcastLayout::Make({*a, *b}, *out));
}

template <typename Op, typename... Ts>
bool RegisterOp(const char* op) {
  bool ok = true;
  ((ok &= CpuKernels().Register(op, DTypeOf<Ts>(), &MakeBinary<Ts, Op>)), ...);
  return ok;
}

[[maybe_unused]] const bool kRegistered =
    RegisterOp<Add, float, double, int64_t, int32_t, int8_t, uint8_t>("add") &
    RegisterOp<Sub, float, double, int64_t, int32_t, int8_t, uint8_t>("sub") &
    RegisterOp<Mul, float, double, int64_t, int32_t, int8_t, uint8_t>("mul") &
    RegisterOp<Div, float, double, int64_t, int32_t, int8_t, uint8_t>("div") &
    RegisterOp<Pow, float, double, int64_t, int32_t>("pow");

}  // namespace
}  // namespace cpu
}  // namespace switchyard
