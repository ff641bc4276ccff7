// The unary elementwise ops in plain loops: floating types in double,
// rounded once; neg, abs and clip on integers too (wrapping: -INT_MIN is
// INT_MIN). Attributes are first rounded to the tensor's dtype, as the
// fast backends hold them; bounds keep NaN (a NaN input stays NaN).

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "backends/reference/kernels/kernels.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace reference {
namespace {

enum class Unary {
  kSigmoid, kErf, kSqrt, kExp, kTanh, kNeg, kAbs, kReciprocal,
  kHardSigmoid, kHardSwish, kClip, kLeakyRelu,
};

struct Params {
  double alpha = 0, beta = 0, low = 0, high = 0;
  int64_t integer_low = 0, integer_high = 0;  // clip on integers
};

// min(max(v, low), high), NaN kept (both comparisons are false for NaN).
double Clamp(double v, double low, double high) {
  if (v < low) v = low;
  if (v > high) v = high;
  return v;
}

double Floating(Unary op, const Params& p, double x) {
  switch (op) {
    case Unary::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Unary::kErf: return std::erf(x);
    case Unary::kSqrt: return std::sqrt(x);
    case Unary::kExp: return std::exp(x);
    case Unary::kTanh: return std::tanh(x);
    case Unary::kNeg: return -x;
    case Unary::kAbs: return std::fabs(x);
    case Unary::kReciprocal: return 1.0 / x;
    case Unary::kHardSigmoid: return Clamp(p.alpha * x + p.beta, 0.0, 1.0);
    case Unary::kHardSwish: return x * Clamp(x / 6.0 + 0.5, 0.0, 1.0);
    case Unary::kClip: return Clamp(x, p.low, p.high);
    case Unary::kLeakyRelu: return x < 0 ? p.alpha * x : x;
  }
  return x;
}

template <typename T>
T Integer(Unary op, const Params& p, T x) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case Unary::kNeg: return static_cast<T>(static_cast<U>(U(0) - U(x)));
    case Unary::kAbs:
      return x < 0 ? static_cast<T>(static_cast<U>(U(0) - U(x))) : x;
    case Unary::kClip: {
      // The bounds are within T's range; max wins when they cross.
      int64_t v = x;
      if (v < p.integer_low) v = p.integer_low;
      if (v > p.integer_high) v = p.integer_high;
      return static_cast<T>(v);
    }
    default:
      return x;
  }
}

template <typename T>
class UnaryKernel : public RefKernel {
 public:
  UnaryKernel(const RefDevice& device, Unary op, Params params)
      : RefKernel(device, DTypeOf<T>(), 1, 1), op_(op), params_(params) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const T* x = inputs[0]->data<T>();
    T* out = output.data<T>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(Floating(op_, params_, x[i]));
      } else {
        out[i] = Integer<T>(op_, params_, x[i]);
      }
    }
  }

 private:
  Unary op_;
  Params params_;
};

// An integer clip bound: min rounded up, max down, saturated at T's range
// (the comparisons are in double, where T's max may round up: >= catches it).
template <typename T>
int64_t IntegerBound(double bound, bool is_min) {
  const double v = is_min ? std::ceil(bound) : std::floor(bound);
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<int64_t>(v);
}

template <typename T, Unary kOp>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node, const Graph&,
                                                  RefDevice& device) {
  Params p;
  // T(attribute): the attribute as the tensor's type holds it.
  if constexpr (kOp == Unary::kHardSigmoid) {
    SY_ASSIGN_OR_RETURN(HardSigmoidAttrs a, HardSigmoidAttrs::FromAttrMap(node.attrs));
    p.alpha = static_cast<T>(a.alpha);
    p.beta = static_cast<T>(a.beta);
  } else if constexpr (kOp == Unary::kLeakyRelu) {
    SY_ASSIGN_OR_RETURN(LeakyReluAttrs a, LeakyReluAttrs::FromAttrMap(node.attrs));
    p.alpha = static_cast<T>(a.alpha);
  } else if constexpr (kOp == Unary::kClip) {
    SY_ASSIGN_OR_RETURN(ClipAttrs a, ClipAttrs::FromAttrMap(node.attrs));
    if constexpr (std::is_floating_point_v<T>) {
      p.low = static_cast<T>(a.min);
      p.high = static_cast<T>(a.max);
    } else {
      p.integer_low = IntegerBound<T>(a.min, true);
      p.integer_high = IntegerBound<T>(a.max, false);
    }
  }
  return std::make_unique<UnaryKernel<T>>(device, kOp, p);
}

template <Unary kOp, typename... Ts>
bool Register(const char* op) {
  return (RefKernels().Register(op, DTypeOf<Ts>(), &MakeUnary<Ts, kOp>) & ...);
}

[[maybe_unused]] const bool kRegistered =
    Register<Unary::kSigmoid, float, double>("sigmoid") &
    Register<Unary::kErf, float, double>("erf") &
    Register<Unary::kSqrt, float, double>("sqrt") &
    Register<Unary::kExp, float, double>("exp") &
    Register<Unary::kTanh, float, double>("tanh") &
    Register<Unary::kNeg, float, double, int64_t, int32_t, int8_t>("neg") &
    Register<Unary::kAbs, float, double, int64_t, int32_t, int8_t, uint8_t>("abs") &
    Register<Unary::kReciprocal, float, double>("reciprocal") &
    Register<Unary::kHardSigmoid, float, double>("hard_sigmoid") &
    Register<Unary::kHardSwish, float, double>("hard_swish") &
    Register<Unary::kClip, float, double, int64_t, int32_t, int8_t, uint8_t>("clip") &
    Register<Unary::kLeakyRelu, float, double>("leaky_relu");

}  // namespace
}  // namespace reference
}  // namespace switchyard
