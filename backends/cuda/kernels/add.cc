// Add: elementwise sum of two tensors of one shape (kernels/elementwise.cu).

#include "backends/cuda/kernels/launch.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

class AddKernel : public Kernel {
 public:
  explicit AddKernel(CudaDevice& device) : device_(device) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchAdd(inputs[0]->data<float>(), inputs[1]->data<float>(),
                           outputs[0]->data<float>(), outputs[0]->num_elements(),
                           device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeAdd(const Node&, const Graph&,
                                                CudaDevice& device) {
  return std::make_unique<AddKernel>(device);
}

SY_REGISTER_KERNEL(CudaKernels(), "add", DType::kFloat32, &MakeAdd);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
