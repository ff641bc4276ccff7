// Expand as a strided copy (strided_copy.h): the input read with stride 0
// along every broadcast dim (ops/broadcast.h BroadcastStrides).

#include <memory>
#include <vector>

#include "backends/cpu/kernels/shape_kernels.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "core/tensor.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cpu {
namespace {

class ExpandKernel : public Kernel {
 public:
  explicit ExpandKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

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

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "expand",
    [](const Node&, const Graph&,
       CpuDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<ExpandKernel>(device.context());
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
