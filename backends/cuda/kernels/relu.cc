// ReLU: max(x, 0), elementwise, in float32 (device code: relu.cu).

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/relu.cuh"

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

absl::StatusOr<std::unique_ptr<Kernel>> MakeRelu(const Node&, const Graph&,
                                                 CudaDevice& device) {
  return std::make_unique<ReluKernel>(device);
}

SY_REGISTER_KERNEL(CudaKernels(), "relu", DType::kFloat32, &MakeRelu);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
