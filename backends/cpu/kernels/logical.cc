// logical_not, logical_and, logical_or, logical_xor on bool tensors (their
// bytes, ops/logical_functors.h): one loop over the output, the binary ones
// through broadcast_binary.h's kernel. Large outputs are split across the
// context's threads.

#include <cstdint>
#include <memory>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/broadcast_binary.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
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

SY_REGISTER_KERNEL(CpuKernels(), "logical_not", DType::kBool,
                   &MakeKernel<NotKernel, CpuDevice>);
#define SY_REGISTER_LOGICAL(op, Functor)          \
  SY_REGISTER_KERNEL(CpuKernels(), op, DType::kBool, \
                     (&MakeBroadcastBinary<uint8_t, uint8_t, logical::Functor>));
SY_LOGICAL_BINARY_OPS(SY_REGISTER_LOGICAL)
#undef SY_REGISTER_LOGICAL

}  // namespace
}  // namespace cpu
}  // namespace switchyard
