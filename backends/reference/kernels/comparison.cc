// The comparisons (equal, less, greater, less_equal, greater_equal): each
// output element from its multi-index (ops/broadcast.h's BroadcastStrides),
// compared with the oracle's own formulas on the elements' values (bools by
// their bytes, any byte but 0 true), written as 0 or 1.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/broadcast_offset.h"
#include "backends/reference/kernels/movement.h"
#include "ops/broadcast.h"
#include "ops/comparison_functors.h"

namespace switchyard {
namespace reference {
namespace {

enum class Relation { kEqual, kLess, kGreater, kLessEqual, kGreaterEqual };

const std::map<std::string, Relation>& Relations() {
  static const auto* relations = new std::map<std::string, Relation>{
      {"equal", Relation::kEqual},
      {"less", Relation::kLess},
      {"greater", Relation::kGreater},
      {"less_equal", Relation::kLessEqual},
      {"greater_equal", Relation::kGreaterEqual},
  };
  return *relations;
}

template <typename V>
bool Holds(Relation relation, V a, V b) {
  switch (relation) {
    case Relation::kEqual: return std::equal_to<V>()(a, b);
    case Relation::kLess: return std::less<V>()(a, b);
    case Relation::kGreater: return std::greater<V>()(a, b);
    case Relation::kLessEqual: return std::less_equal<V>()(a, b);
    case Relation::kGreaterEqual: return std::greater_equal<V>()(a, b);
  }
  return false;
}

template <typename T>
class ComparisonKernel : public MovementKernel {
 public:
  ComparisonKernel(const RefDevice& device, const std::string& op, Relation relation)
      : MovementKernel(device, op, 2, 2, 1), relation_(relation) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    using S = compare::Stored<T>;
    Tensor& output = *outputs[0];
    const Shape& shape = output.shape();
    const std::vector<int64_t> sa = BroadcastStrides(inputs[0]->shape(), shape);
    const std::vector<int64_t> sb = BroadcastStrides(inputs[1]->shape(), shape);
    const S* a = inputs[0]->data<S>();
    const S* b = inputs[1]->data<S>();
    uint8_t* out = output.data<uint8_t>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      const int64_t ia = BroadcastOffset(i, shape, sa);
      const int64_t ib = BroadcastOffset(i, shape, sb);
      bool holds;
      if constexpr (std::is_same<T, bool>::value) {
        holds = Holds<bool>(relation_, a[ia] != 0, b[ib] != 0);
      } else {
        holds = Holds<T>(relation_, a[ia], b[ib]);
      }
      out[i] = holds ? 1 : 0;
    }
    return absl::OkStatus();
  }

 private:
  Relation relation_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeComparison(const Node& node, const Graph&,
                                                       RefDevice& device) {
  const auto it = Relations().find(node.op);
  if (it == Relations().end()) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no formula for '", node.op,
        "'; add one to backends/reference/kernels/comparison.cc"));
  }
  return std::make_unique<ComparisonKernel<T>>(device, node.op, it->second);
}

template <typename... Ts>
bool RegisterComparison(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(RefKernels(), op, [](auto tag) {
    return &MakeComparison<typename decltype(tag)::type>;
  });
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_COMPARISON(op, Functor) ok &= RegisterComparison(op, ComparableTypes{});
  SY_COMPARISON_OPS(SY_REGISTER_COMPARISON)
#undef SY_REGISTER_COMPARISON
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
