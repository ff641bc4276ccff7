// The unary elementwise ops (ops/unary_elementwise.cc): Eigen array
// expressions for float32 and float64 (Eigen's vectorised exp, tanh and
// erf), loops for the integer neg, abs and clip. NaN stays NaN:
// the bounds of clip, hard_sigmoid and hard_swish use NaN-propagating
// min/max. Attributes are rounded to the tensor's dtype once, when the
// kernel is made. Large tensors are split across the context's threads.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/elementwise_family.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/elementwise_attrs.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace switchyard {
namespace cpu {
namespace {

enum class Unary {
  kSigmoid, kErf, kSqrt, kExp, kTanh, kNeg, kAbs, kReciprocal,
  kHardSigmoid, kHardSwish, kClip, kLeakyRelu,
};

// The attributes, in the tensor's type (unused ones stay 0).
template <typename T>
struct Coefficients {
  T alpha = 0, beta = 0;
  T low = 0, high = 0;  // clip
};

template <typename T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

// max(x, v) and min(x, v), NaN when x is NaN (Eigen's default is
// whichever operand the instruction picks).
template <typename X, typename T>
auto MaxKeepNaN(const X& x, T v) {
  return x.binaryExpr(Array<T>::Constant(x.size(), v),
                      Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
}
template <typename X, typename T>
auto MinKeepNaN(const X& x, T v) {
  return x.binaryExpr(Array<T>::Constant(x.size(), v),
                      Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
}

template <typename T>
void ApplyFloating(Unary op, const Coefficients<T>& c, const T* in, T* out,
                   int64_t n) {
  const Eigen::Map<const Array<T>> x(in, n);
  Eigen::Map<Array<T>> y(out, n);
  switch (op) {
    // Not Eigen's logistic(): its float approximation loses relative
    // accuracy for large negative x (1e-4 at x = -6.4).
    case Unary::kSigmoid: y = T(1) / (T(1) + (-x).exp()); return;
    case Unary::kErf: y = x.erf(); return;
    // Not Eigen's sqrt(): with EIGEN_FAST_MATH it is rsqrt plus a Newton
    // step, off by an ulp; std::sqrt is correctly rounded.
    case Unary::kSqrt: y = x.unaryExpr([](T v) { return std::sqrt(v); }); return;
    case Unary::kExp: y = x.exp(); return;
    case Unary::kTanh: y = x.tanh(); return;
    case Unary::kNeg: y = -x; return;
    case Unary::kAbs: y = x.abs(); return;
    case Unary::kReciprocal: y = T(1) / x; return;
    case Unary::kHardSigmoid:
      y = MinKeepNaN(MaxKeepNaN(x * c.alpha + c.beta, T(0)), T(1));
      return;
    case Unary::kHardSwish:
      y = x * MinKeepNaN(MaxKeepNaN(x / T(6) + T(0.5), T(0)), T(1));
      return;
    case Unary::kClip:
      // max wins when low > high, as ONNX's min(max(x, low), high).
      y = MinKeepNaN(MaxKeepNaN(x, c.low), c.high);
      return;
    case Unary::kLeakyRelu:
      // x >= 0 adds alpha * 0; x < 0 adds to 0: each one rounding.
      y = MaxKeepNaN(x, T(0)) + c.alpha * MinKeepNaN(x, T(0));
      return;
  }
}

template <typename T>
void ApplyInteger(Unary op, const Coefficients<T>& c, const T* in, T* out,
                  int64_t n) {
  switch (op) {
    case Unary::kNeg:
      for (int64_t i = 0; i < n; ++i) out[i] = wrapping::Neg(in[i]);
      return;
    case Unary::kAbs:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = in[i] < T(0) ? wrapping::Neg(in[i]) : in[i];
      }
      return;
    case Unary::kClip:
      for (int64_t i = 0; i < n; ++i) {
        const T low = in[i] < c.low ? c.low : in[i];
        out[i] = low > c.high ? c.high : low;
      }
      return;
    default:  // not registered for integers
      return;
  }
}

// An integer bound from a float one: rounded inward (min up, max down) and
// saturated at the type's range, so -inf and +inf are no bound.
template <typename T>
T IntegerBound(double bound, bool is_min) {
  const double rounded = is_min ? std::ceil(bound) : std::floor(bound);
  if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(rounded);
}

template <typename T>
class UnaryKernel : public Kernel {
 public:
  UnaryKernel(std::shared_ptr<const CpuContext> context, Unary op,
              Coefficients<T> c)
      : context_(std::move(context)), op_(op), c_(c) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const T* in = inputs[0]->data<T>();
    T* out = outputs[0]->data<T>();
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   if constexpr (std::is_floating_point_v<T>) {
                     ApplyFloating(op_, c_, in + begin, out + begin, end - begin);
                   } else {
                     ApplyInteger(op_, c_, in + begin, out + begin, end - begin);
                   }
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  Unary op_;
  Coefficients<T> c_;
};

template <typename T, Unary kOp>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node,
                                                  const Graph&,
                                                  CpuDevice& device) {
  Coefficients<T> c;
  if constexpr (kOp == Unary::kHardSigmoid) {
    SY_ASSIGN_OR_RETURN(HardSigmoidAttrs a, HardSigmoidAttrs::FromAttrMap(node.attrs));
    c.alpha = static_cast<T>(a.alpha);
    c.beta = static_cast<T>(a.beta);
  } else if constexpr (kOp == Unary::kLeakyRelu) {
    SY_ASSIGN_OR_RETURN(LeakyReluAttrs a, LeakyReluAttrs::FromAttrMap(node.attrs));
    c.alpha = static_cast<T>(a.alpha);
  } else if constexpr (kOp == Unary::kClip) {
    SY_ASSIGN_OR_RETURN(ClipAttrs a, ClipAttrs::FromAttrMap(node.attrs));
    if constexpr (std::is_floating_point_v<T>) {
      c.low = static_cast<T>(a.min);
      c.high = static_cast<T>(a.max);
    } else {
      c.low = IntegerBound<T>(a.min, /*is_min=*/true);
      c.high = IntegerBound<T>(a.max, /*is_min=*/false);
    }
  }
  return std::make_unique<UnaryKernel<T>>(device.context(), kOp, c);
}

template <Unary kOp, typename... Ts>
bool RegisterUnary(const char* op) {
  bool ok = true;
  ((ok &= CpuKernels().Register(op, DTypeOf<Ts>(), &MakeUnary<Ts, kOp>)), ...);
  return ok;
}

[[maybe_unused]] const bool kRegistered =
    RegisterUnary<Unary::kSigmoid, float, double>("sigmoid") &
    RegisterUnary<Unary::kErf, float, double>("erf") &
    RegisterUnary<Unary::kSqrt, float, double>("sqrt") &
    RegisterUnary<Unary::kExp, float, double>("exp") &
    RegisterUnary<Unary::kTanh, float, double>("tanh") &
    RegisterUnary<Unary::kNeg, float, double, int64_t, int32_t, int8_t>("neg") &
    RegisterUnary<Unary::kAbs, float, double, int64_t, int32_t, int8_t,
                  uint8_t>("abs") &
    RegisterUnary<Unary::kReciprocal, float, double>("reciprocal") &
    RegisterUnary<Unary::kHardSigmoid, float, double>("hard_sigmoid") &
    RegisterUnary<Unary::kHardSwish, float, double>("hard_swish") &
    RegisterUnary<Unary::kClip, float, double, int64_t, int32_t, int8_t,
                  uint8_t>("clip") &
    RegisterUnary<Unary::kLeakyRelu, float, double>("leaky_relu");

}  // namespace
}  // namespace cpu
}  // namespace switchyard
