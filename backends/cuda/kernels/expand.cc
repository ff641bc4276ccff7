// Expand: one strided copy (strided_copy.cu) reading the input with stride 0
// along every broadcast dim (ops/broadcast.h BroadcastStrides).

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cuda {
namespace {

class ExpandKernel : public Kernel {
 public:
  explicit ExpandKernel(CudaDevice& device) : device_(device) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    SY_RETURN_IF_ERROR(device_.Activate());
    return RunStridedCopy(device_, "expand", out.data<void>(), in.data<void>(),
                          DTypeSize(in.dtype()), out.shape().dims(),
                          kernels::ContiguousStrides(out.shape().dims()),
                          BroadcastStrides(in.shape(), out.shape()));
  }

 private:
  CudaDevice& device_;
};

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "expand",
    [](const Node&, const Graph&,
       CudaDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<ExpandKernel>(device);
    });

}  // namespace
}  // namespace cuda
}  // namespace switchyard
