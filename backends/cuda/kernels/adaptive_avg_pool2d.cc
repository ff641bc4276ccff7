// AdaptiveAvgPool2d over NCHW planes (kernels/pooling.cu).

#include "backends/cuda/kernels/launch.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

class AdaptiveAvgPool2dKernel : public Kernel {
 public:
  explicit AdaptiveAvgPool2dKernel(CudaDevice& device) : device_(device) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchAdaptiveAvgPool2d(
            inputs[0]->data<float>(), outputs[0]->data<float>(),
            in.dim(0) * in.dim(1), in.dim(2), in.dim(3), out.dim(2), out.dim(3),
            device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeAdaptiveAvgPool2d(const Node&, const Graph&,
                                                              CudaDevice& device) {
  return std::make_unique<AdaptiveAvgPool2dKernel>(device);
}

SY_REGISTER_KERNEL(CudaKernels(), "adaptive_avg_pool2d", DType::kFloat32,
                   &MakeAdaptiveAvgPool2d);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
