// logical_not, logical_and, logical_or, logical_xor on bool tensors (their
// bytes, ops/logical_functors.h): one loop over the output, the binary ones
// along the runs of ops/broadcast.h's BroadcastLayout. Large outputs are
// split across the context's threads.

#include <cstdint>
#include <memory>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/broadcast.h"
#include "ops/logical_functors.h"

namespace switchyard {
namespace cpu {
namespace {

class NotKernel : public Kernel {
 public:
  explicit NotKernel(const CpuDevice& device) : context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const uint8_t* in = inputs[0]->data<uint8_t>();
    uint8_t* out = outputs[0]->data<uint8_t>();
    const logical::Not f;
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

template <typename F>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(std::shared_ptr<const CpuContext> context, BroadcastLayout layout)
      : context_(std::move(context)), layout_(std::move(layout)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const uint8_t* a = inputs[0]->data<uint8_t>();
    const uint8_t* b = inputs[1]->data<uint8_t>();
    uint8_t* out = outputs[0]->data<uint8_t>();
    const F f;
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   ForEachBroadcastRun(
                       layout_, begin, end,
                       [&](int64_t o, const int64_t* offsets,
                           const int64_t* strides, int64_t count) {
                         const uint8_t* x = a + offsets[0];
                         const uint8_t* y = b + offsets[1];
                         for (int64_t i = 0; i < count; ++i) {
                           out[o + i] = f(x[i * strides[0]], y[i * strides[1]]);
                         }
                       });
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  BroadcastLayout layout_;
};

template <typename F>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout, BinaryBroadcastLayout(node, graph));
  return std::make_unique<BinaryKernel<F>>(device.context(), std::move(layout));
}

SY_REGISTER_KERNEL(CpuKernels(), "logical_not", DType::kBool,
                   &MakeKernel<NotKernel, CpuDevice>);
#define SY_REGISTER_LOGICAL(op, Functor)          \
  SY_REGISTER_KERNEL(CpuKernels(), op, DType::kBool, \
                     &MakeBinary<logical::Functor>);
SY_LOGICAL_BINARY_OPS(SY_REGISTER_LOGICAL)
#undef SY_REGISTER_LOGICAL

}  // namespace
}  // namespace cpu
}  // namespace switchyard
