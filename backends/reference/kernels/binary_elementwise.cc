// add, sub, mul, div, pow, mod, max, min with numpy broadcasting, one
// output element at a time from its multi-index (ops/broadcast.h's BroadcastStrides). Floating
// types in double, rounded once (for + - * / that is the correctly rounded
// float result); integers in 64-bit two's complement, wrapped to the type.
// An integer division by zero, or 0 to a negative power, is InvalidArgument.
//
// The oracle's formulas are its own (Formulas() below, by op name), not the
// fast backends' functors; only the list of ops and their element types
// comes from ops/binary_functors.h (SY_BINARY_ELEMENTWISE_OPS). A new op of
// that list needs one entry here.

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backends/reference/kernels/broadcast_offset.h"
#include "backends/reference/kernels/kernels.h"
#include "core/status_macros.h"
#include "ops/binary_functors.h"
#include "ops/broadcast.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace reference {
namespace {

// What a formula sees of the node's attributes (an op with attributes adds
// its fields and a `read`).
struct Params {
  bool fmod = false;  // mod
};

// One op: in double for floating types; on the int64 values modulo 2^64 for
// integers (the kernel wraps the result to T), setting `bad` when the
// operands have no integer result, which `no_value` then names; and how its
// Params are read from the node's attributes (null: none).
struct Formula {
  double (*floating)(double a, double b, const Params& p);
  uint64_t (*integer)(int64_t a, int64_t b, const Params& p, bool& bad);
  const char* no_value = nullptr;
  absl::StatusOr<Params> (*read)(const AttrMap& attrs) = nullptr;
};

uint64_t IntegerPow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : uint64_t(0) - 1;
    return 0;  // 1 / base^n truncates to 0 (base 0 was refused)
  }
  uint64_t result = 1;
  uint64_t power = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e > 0; e /= 2) {
    if (e % 2 == 1) result *= power;
    power *= power;
  }
  return result;
}

const std::map<std::string, Formula>& Formulas() {
  static const auto* formulas = new std::map<std::string, Formula>{
      {"add",
       {[](double x, double y, const Params&) { return x + y; },
        [](int64_t x, int64_t y, const Params&, bool&) {
          return static_cast<uint64_t>(x) + static_cast<uint64_t>(y);
        }}},
      {"sub",
       {[](double x, double y, const Params&) { return x - y; },
        [](int64_t x, int64_t y, const Params&, bool&) {
          return static_cast<uint64_t>(x) - static_cast<uint64_t>(y);
        }}},
      {"mul",
       {[](double x, double y, const Params&) { return x * y; },
        [](int64_t x, int64_t y, const Params&, bool&) {
          return static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
        }}},
      {"div",
       {[](double x, double y, const Params&) { return x / y; },
        [](int64_t x, int64_t y, const Params&, bool& bad) -> uint64_t {
          if (y == 0) {
            bad = true;
            return 0;
          }
          // INT_MIN / -1 wraps.
          if (y == -1) return uint64_t(0) - static_cast<uint64_t>(x);
          return static_cast<uint64_t>(x / y);
        },
        "integer division by zero"}},
      {"pow",
       {[](double x, double y, const Params&) { return std::pow(x, y); },
        [](int64_t x, int64_t y, const Params&, bool& bad) -> uint64_t {
          if (x == 0 && y < 0) {
            bad = true;
            return 0;
          }
          return IntegerPow(x, y);
        },
        "0 to a negative integer power"}},
      {"mod",
       {[](double x, double y, const Params& p) {
          const double r = std::fmod(x, y);  // exact
          return !p.fmod && r != 0 && (r < 0) != (y < 0) ? r + y : r;
        },
        [](int64_t x, int64_t y, const Params& p, bool& bad) -> uint64_t {
          if (y == 0) {
            bad = true;
            return 0;
          }
          if (y == -1) return 0;  // INT64_MIN % -1 is undefined in C++
          const int64_t r = x % y;
          return static_cast<uint64_t>(
              !p.fmod && r != 0 && (r < 0) != (y < 0) ? r + y : r);
        },
        "integer modulo by zero",
        [](const AttrMap& attrs) -> absl::StatusOr<Params> {
          SY_ASSIGN_OR_RETURN(ModAttrs a, ModAttrs::FromAttrMap(attrs));
          Params p;
          p.fmod = a.fmod != 0;
          return p;
        }}},
      // NaN wins over any number, as numpy's maximum and minimum.
      {"max",
       {[](double x, double y, const Params&) {
          return std::isnan(x) || std::isnan(y) ? NAN : (x > y ? x : y);
        },
        [](int64_t x, int64_t y, const Params&, bool&) {
          return static_cast<uint64_t>(x > y ? x : y);
        }}},
      {"min",
       {[](double x, double y, const Params&) {
          return std::isnan(x) || std::isnan(y) ? NAN : (x < y ? x : y);
        },
        [](int64_t x, int64_t y, const Params&, bool&) {
          return static_cast<uint64_t>(x < y ? x : y);
        }}},
  };
  return *formulas;
}

template <typename T>
class BinaryCompute : public RefKernel {
 public:
  BinaryCompute(const RefDevice& device, const Formula& formula, Params params)
      : RefKernel(device, DTypeOf<T>(), 2, 2), formula_(formula), params_(params) {}
  // Whether the last Compute met operands without an integer result.
  bool bad() const { return bad_; }

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& out_shape = output.shape();
    const std::vector<int64_t> sa = BroadcastStrides(inputs[0]->shape(), out_shape);
    const std::vector<int64_t> sb = BroadcastStrides(inputs[1]->shape(), out_shape);
    const T* a = inputs[0]->data<T>();
    const T* b = inputs[1]->data<T>();
    T* out = output.data<T>();
    bad_ = false;
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      const int64_t ia = BroadcastOffset(i, out_shape, sa);
      const int64_t ib = BroadcastOffset(i, out_shape, sb);
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(formula_.floating(a[ia], b[ib], params_));
      } else {
        out[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(
            formula_.integer(a[ia], b[ib], params_, bad_)));
      }
    }
  }

 private:
  const Formula& formula_;
  Params params_;
  bool bad_ = false;
};

// RefKernel's checks and Compute, then the integer error Compute found
// (one run at a time: the flag lives in the kernel).
template <typename T>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(const RefDevice& device, const Formula& formula, Params params,
               std::string name)
      : compute_(device, formula, params), no_value_(formula.no_value), name_(std::move(name)) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    absl::MutexLock lock(&mu_);
    absl::Status status = compute_.Run(inputs, outputs);
    if (!status.ok()) return status;
    if (compute_.bad()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " (", DTypeName(DTypeOf<T>()), "): ", no_value_,
          "; integer ", name_, " has no value for it (cast to float32 to get "
          "inf)"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Mutex mu_;
  BinaryCompute<T> compute_ ABSL_GUARDED_BY(mu_);
  const char* no_value_;
  std::string name_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph&,
                                                   RefDevice& device) {
  const auto it = Formulas().find(node.op);
  if (it == Formulas().end()) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no formula for '", node.op,
        "'; add one to backends/reference/kernels/binary_elementwise.cc"));
  }
  Params params;
  if (it->second.read != nullptr) {
    SY_ASSIGN_OR_RETURN(params, it->second.read(node.attrs));
  }
  return std::make_unique<BinaryKernel<T>>(device, it->second, params, node.op);
}

template <typename... Ts>
bool RegisterBinary(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(RefKernels(), op, [](auto tag) {
    return &MakeBinary<typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_BINARY(op, Functor, Types, flops, Attrs) \
  ok &= RegisterBinary(op, Types{});
  SY_BINARY_ELEMENTWISE_OPS(SY_REGISTER_BINARY)
#undef SY_REGISTER_BINARY
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
