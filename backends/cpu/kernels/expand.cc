// Expand as a strided copy (strided_copy.h): the input read with stride 0
// along every broadcast dim (ops/broadcast.h BroadcastStrides).

#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cpu {
namespace {

class ExpandKernel : public Kernel {
 public:
  explicit ExpandKernel(const CpuDevice& device)
      : context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    StridedCopy copy;
    copy.dims = out.shape().dims();
    copy.dst_strides = ContiguousStrides(copy.dims);
    copy.src_strides = BroadcastStrides(in.shape(), out.shape());
    RunStridedCopy(*context_, out.data<char>(), in.data<char>(),
                   DTypeSize(in.dtype()), copy);
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "expand",
                              &MakeKernel<ExpandKernel, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
