// The comparisons (ops/comparison_functors.h's SY_COMPARISON_OPS) with numpy
// broadcasting into bool bytes: broadcast_binary.h's kernel over the
// functors and element types.

#include <cstdint>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/broadcast_binary.h"
#include "core/kernel_registry.h"
#include "ops/comparison_functors.h"

namespace switchyard {
namespace cpu {
namespace {

template <template <typename> class Functor, typename... Ts>
bool RegisterComparison(const char* op, ElementTypes<Ts...>) {
  return RegisterForTypes<Ts...>(CpuKernels(), op, [](auto tag) {
    using T = typename decltype(tag)::type;
    return &MakeBroadcastBinary<compare::Stored<T>, uint8_t, Functor<T>>;
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
