// add, sub, mul, div, pow with numpy broadcasting, one output element at a
// time from its multi-index (ops/broadcast.h's BroadcastStrides). Floating
// types in double, rounded once (for + - * / that is the correctly rounded
// float result); integers in 64-bit two's complement, wrapped to the type.
// An integer division by zero, or 0 to a negative power, is InvalidArgument.

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace reference {
namespace {

enum class Binary { kAdd, kSub, kMul, kDiv, kPow };

// Integer arithmetic on uint64 (defined wrap-around), then truncated to T.
template <typename T>
T Wrap(uint64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

template <typename T>
T IntegerPow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? T(1) : Wrap<T>(uint64_t(0) - 1);
    return 0;  // 1 / base^n truncates to 0 (base 0 was refused)
  }
  uint64_t result = 1;
  uint64_t power = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e > 0; e /= 2) {
    if (e % 2 == 1) result *= power;
    power *= power;
  }
  return Wrap<T>(result);
}

// One element; `bad` set when an integer op has no value.
template <typename T>
T Apply(Binary op, T a, T b, bool& bad) {
  if constexpr (std::is_floating_point_v<T>) {
    const double x = a, y = b;
    switch (op) {
      case Binary::kAdd: return static_cast<T>(x + y);
      case Binary::kSub: return static_cast<T>(x - y);
      case Binary::kMul: return static_cast<T>(x * y);
      case Binary::kDiv: return static_cast<T>(x / y);
      case Binary::kPow: return static_cast<T>(std::pow(x, y));
    }
  } else {
    const int64_t x = a, y = b;
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (op) {
      case Binary::kAdd: return Wrap<T>(ux + uy);
      case Binary::kSub: return Wrap<T>(ux - uy);
      case Binary::kMul: return Wrap<T>(ux * uy);
      case Binary::kDiv:
        if (y == 0) {
          bad = true;
          return 0;
        }
        if (y == -1) return Wrap<T>(uint64_t(0) - ux);  // INT_MIN / -1 wraps
        return Wrap<T>(static_cast<uint64_t>(x / y));
      case Binary::kPow:
        if (x == 0 && y < 0) {
          bad = true;
          return 0;
        }
        return IntegerPow<T>(x, y);
    }
  }
  return 0;
}

template <typename T>
class BinaryCompute : public RefKernel {
 public:
  BinaryCompute(const RefDevice& device, Binary op)
      : RefKernel(device, DTypeOf<T>(), 2, 2), op_(op) {}
  // Whether the last Compute met an integer division by zero.
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
      int64_t rest = i, ia = 0, ib = 0;
      for (int d = out_shape.rank() - 1; d >= 0; --d) {
        const int64_t index = rest % out_shape.dim(d);
        rest /= out_shape.dim(d);
        ia += index * sa[d];
        ib += index * sb[d];
      }
      out[i] = Apply(op_, a[ia], b[ib], bad_);
    }
  }

 private:
  Binary op_;
  bool bad_ = false;
};

// RefKernel's checks and Compute, then the integer error Compute found
// (one run at a time: the flag lives in the kernel).
template <typename T>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(const RefDevice& device, Binary op, std::string name)
      : compute_(device, op), name_(std::move(name)) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    absl::MutexLock lock(&mu_);
    absl::Status status = compute_.Run(inputs, outputs);
    if (!status.ok()) return status;
    if (compute_.bad()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " (", DTypeName(DTypeOf<T>()), "): ",
          name_ == "div" ? "integer division by zero"
                         : "0 to a negative integer power",
          "; integer ", name_, " has no value for it (cast to float32 to get "
          "inf)"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Mutex mu_;
  BinaryCompute<T> compute_ ABSL_GUARDED_BY(mu_);
  std::string name_;
};

template <typename T, Binary kOp>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph&,
                                                   RefDevice& device) {
  return std::make_unique<BinaryKernel<T>>(device, kOp, node.op);
}

template <Binary kOp, typename... Ts>
bool Register(const char* op) {
  return (RefKernels().Register(op, DTypeOf<Ts>(), &MakeBinary<Ts, kOp>) & ...);
}

[[maybe_unused]] const bool kRegistered =
    Register<Binary::kAdd, float, double, int64_t, int32_t, int8_t, uint8_t>("add") &
    Register<Binary::kSub, float, double, int64_t, int32_t, int8_t, uint8_t>("sub") &
    Register<Binary::kMul, float, double, int64_t, int32_t, int8_t, uint8_t>("mul") &
    Register<Binary::kDiv, float, double, int64_t, int32_t, int8_t, uint8_t>("div") &
    Register<Binary::kPow, float, double, int64_t, int32_t>("pow");

}  // namespace
}  // namespace reference
}  // namespace switchyard
