// The unary elementwise ops in plain loops: floating types in double,
// rounded once; integer forms (neg, abs, clip) in int64, wrapped to the
// type (-INT_MIN is INT_MIN). Attributes are first rounded to the tensor's
// dtype, as the fast backends hold them; bounds keep NaN (a NaN input stays
// NaN).
//
// The oracle's formulas are its own (Formulas() below, by op name), not the
// fast backends' functors; only the list of ops and their element types
// comes from ops/unary_functors.h (SY_UNARY_ELEMENTWISE_OPS). A new op of
// that list needs one entry here.

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"
#include "ops/unary_functors.h"

namespace switchyard {
namespace reference {
namespace {

// What a formula sees of the node's attributes, rounded to the dtype.
struct Params {
  double alpha = 0, beta = 0, low = 0, high = 0;
  int64_t integer_low = 0, integer_high = 0;  // clip on integers
};

// One op: x in double (floating types) or int64 (integers; null: none),
// and how its Params are read from the node's attributes (null: none).
struct Formula {
  double (*floating)(double x, const Params& p);
  int64_t (*integer)(int64_t x, const Params& p);
  absl::StatusOr<Params> (*read)(const AttrMap& attrs);
};

// min(max(v, low), high), NaN kept (both comparisons are false for NaN).
double Clamp(double v, double low, double high) {
  if (v < low) v = low;
  if (v > high) v = high;
  return v;
}

// 0 - x modulo 2^64 (the kernel wraps it to T).
int64_t WrappingNeg(int64_t x) {
  return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x));
}

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

// The formulas for element type T (T only rounds the attributes).
template <typename T>
const std::map<std::string, Formula>& Formulas() {
  // T(attribute): the attribute as the tensor's type holds it.
  static const auto* formulas = new std::map<std::string, Formula>{
      {"sigmoid",
       {[](double x, const Params&) { return 1.0 / (1.0 + std::exp(-x)); }}},
      {"erf", {[](double x, const Params&) { return std::erf(x); }}},
      {"gelu",
       {[](double x, const Params&) {
          return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        }}},
      {"sqrt", {[](double x, const Params&) { return std::sqrt(x); }}},
      {"exp", {[](double x, const Params&) { return std::exp(x); }}},
      {"log", {[](double x, const Params&) { return std::log(x); }}},
      {"floor", {[](double x, const Params&) { return std::floor(x); }}},
      {"ceil", {[](double x, const Params&) { return -std::floor(-x); }}},
      // Half to even, written out: the nearest integer, and of two the even.
      {"round",
       {[](double x, const Params&) {
          double r = std::floor(x + 0.5);
          if (r - x == 0.5 && std::fmod(r, 2.0) != 0) r -= 1;
          return r;
        }}},
      {"tanh", {[](double x, const Params&) { return std::tanh(x); }}},
      {"sin", {[](double x, const Params&) { return std::sin(x); }}},
      {"cos", {[](double x, const Params&) { return std::cos(x); }}},
      {"tan", {[](double x, const Params&) { return std::tan(x); }}},
      {"asin", {[](double x, const Params&) { return std::asin(x); }}},
      {"acos", {[](double x, const Params&) { return std::acos(x); }}},
      {"atan", {[](double x, const Params&) { return std::atan(x); }}},
      {"sinh", {[](double x, const Params&) { return std::sinh(x); }}},
      {"cosh", {[](double x, const Params&) { return std::cosh(x); }}},
      {"asinh", {[](double x, const Params&) { return std::asinh(x); }}},
      {"acosh", {[](double x, const Params&) { return std::acosh(x); }}},
      {"atanh", {[](double x, const Params&) { return std::atanh(x); }}},
      {"neg",
       {[](double x, const Params&) { return -x; },
        [](int64_t x, const Params&) { return WrappingNeg(x); }}},
      {"abs",
       {[](double x, const Params&) { return std::fabs(x); },
        [](int64_t x, const Params&) { return x < 0 ? WrappingNeg(x) : x; }}},
      {"reciprocal", {[](double x, const Params&) { return 1.0 / x; }}},
      {"hard_sigmoid",
       {[](double x, const Params& p) {
          return Clamp(p.alpha * x + p.beta, 0.0, 1.0);
        },
        nullptr,
        [](const AttrMap& attrs) -> absl::StatusOr<Params> {
          SY_ASSIGN_OR_RETURN(HardSigmoidAttrs a, HardSigmoidAttrs::FromAttrMap(attrs));
          Params p;
          p.alpha = static_cast<T>(a.alpha);
          p.beta = static_cast<T>(a.beta);
          return p;
        }}},
      {"hard_swish",
       {[](double x, const Params&) { return x * Clamp(x / 6.0 + 0.5, 0.0, 1.0); }}},
      {"clip",
       {[](double x, const Params& p) { return Clamp(x, p.low, p.high); },
        // The bounds are within T's range; max wins when they cross.
        [](int64_t x, const Params& p) {
          if (x < p.integer_low) x = p.integer_low;
          if (x > p.integer_high) x = p.integer_high;
          return x;
        },
        [](const AttrMap& attrs) -> absl::StatusOr<Params> {
          SY_ASSIGN_OR_RETURN(ClipAttrs a, ClipAttrs::FromAttrMap(attrs));
          Params p;
          if constexpr (std::is_floating_point_v<T>) {
            p.low = static_cast<T>(a.min);
            p.high = static_cast<T>(a.max);
          } else {
            p.integer_low = IntegerBound<T>(a.min, true);
            p.integer_high = IntegerBound<T>(a.max, false);
          }
          return p;
        }}},
      {"leaky_relu",
       {[](double x, const Params& p) { return x < 0 ? p.alpha * x : x; },
        nullptr,
        [](const AttrMap& attrs) -> absl::StatusOr<Params> {
          SY_ASSIGN_OR_RETURN(LeakyReluAttrs a, LeakyReluAttrs::FromAttrMap(attrs));
          Params p;
          p.alpha = static_cast<T>(a.alpha);
          return p;
        }}},
  };
  return *formulas;
}

template <typename T>
class UnaryKernel : public RefKernel {
 public:
  UnaryKernel(const RefDevice& device, const Formula& formula, Params params)
      : RefKernel(device, DTypeOf<T>(), 1, 1), formula_(formula), params_(params) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const T* x = inputs[0]->data<T>();
    T* out = output.data<T>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(formula_.floating(x[i], params_));
      } else {
        out[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(
            formula_.integer(x[i], params_)));
      }
    }
  }

 private:
  const Formula& formula_;
  Params params_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node, const Graph&,
                                                  RefDevice& device) {
  const auto it = Formulas<T>().find(node.op);
  if (it == Formulas<T>().end() ||
      (!std::is_floating_point_v<T> && it->second.integer == nullptr)) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no ", DTypeName(DTypeOf<T>()),
        " formula for '", node.op,
        "'; add one to backends/reference/kernels/unary_elementwise.cc"));
  }
  Params params;
  if (it->second.read != nullptr) {
    SY_ASSIGN_OR_RETURN(params, it->second.read(node.attrs));
  }
  return std::make_unique<UnaryKernel<T>>(device, it->second, params);
}

template <typename... Ts>
bool RegisterUnary(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(RefKernels(), op, [](auto tag) {
    return &MakeUnary<typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_UNARY(op, Functor, Types, flops, Attrs) \
  ok &= RegisterUnary(op, Types{});
  SY_UNARY_ELEMENTWISE_OPS(SY_REGISTER_UNARY)
#undef SY_REGISTER_UNARY
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
