// bitwise_not, bitwise_and, bitwise_or, bitwise_xor on integer tensors: one
// loop over the output, the binary ones through broadcast_binary.h's kernel.
// Large outputs are split across the context's threads.
// The operators work on the unsigned bits, so no signed value is ever
// shifted or overflowed.

#include <cstdint>
#include <memory>
#include <type_traits>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/broadcast_binary.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/kernel_lists.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T>
using Bits = std::make_unsigned_t<T>;

struct And {
  template <typename U>
  U operator()(U a, U b) const { return a & b; }
};
struct Or {
  template <typename U>
  U operator()(U a, U b) const { return a | b; }
};
struct Xor {
  template <typename U>
  U operator()(U a, U b) const { return a ^ b; }
};

template <typename T>
class NotKernel : public Kernel {
 public:
  explicit NotKernel(const CpuDevice& device) : context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const auto* in = reinterpret_cast<const Bits<T>*>(inputs[0]->data<T>());
    auto* out = reinterpret_cast<Bits<T>*>(outputs[0]->data<T>());
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) {
                     out[i] = static_cast<Bits<T>>(~in[i]);
                   }
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeNot(const Node& node, const Graph& graph,
                                                CpuDevice& device) {
  return MakeKernel<NotKernel<T>, CpuDevice>(node, graph, device);
}
template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeAnd(const Node& node, const Graph& graph,
                                                CpuDevice& device) {
  return MakeBroadcastBinary<Bits<T>, Bits<T>, And>(node, graph, device);
}
template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeOr(const Node& node, const Graph& graph,
                                               CpuDevice& device) {
  return MakeBroadcastBinary<Bits<T>, Bits<T>, Or>(node, graph, device);
}
template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeXor(const Node& node, const Graph& graph,
                                                CpuDevice& device) {
  return MakeBroadcastBinary<Bits<T>, Bits<T>, Xor>(node, graph, device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "bitwise_not", MakeNot, SY_BITWISE_TYPES);
SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "bitwise_and", MakeAnd, SY_BITWISE_TYPES);
SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "bitwise_or", MakeOr, SY_BITWISE_TYPES);
SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "bitwise_xor", MakeXor, SY_BITWISE_TYPES);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
