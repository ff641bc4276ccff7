// ReLU: max(x, 0), elementwise (kernels/elementwise.cu).

#include "backends/cuda/cuda_kernel_registry.h"
#include "backends/cuda/kernels/launch.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

class ReluKernel : public Kernel {
 public:
  explicit ReluKernel(CudaDevice& device) : device_(device) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchRelu(inputs[0]->data<float>(), outputs[0]->data<float>(),
                            outputs[0]->num_elements(), device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

[[maybe_unused]] const bool kRegistered = RegisterCudaKernel(
    "relu", {nullptr, [](const Node&, const Graph&, CudaDevice& device)
                          -> absl::StatusOr<std::unique_ptr<Kernel>> {
               return std::make_unique<ReluKernel>(device);
             }});

}  // namespace
}  // namespace cuda
}  // namespace switchyard
