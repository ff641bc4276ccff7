// MaxPool2d over NCHW planes (kernels/pooling.cu).

#include "backends/cuda/kernels/launch.h"
#include "backends/cuda/kernels/simple_kernel.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class MaxPool2dKernel : public Kernel {
 public:
  MaxPool2dKernel(CudaDevice& device, kernels::MaxPool2dParams params)
      : device_(device), params_(params) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchMaxPool2d(inputs[0]->data<float>(), outputs[0]->data<float>(),
                                 params_, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::MaxPool2dParams params_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMaxPool2d(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(MaxPool2dAttrs a, ParseMaxPool2dAttrs(node.attrs));
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  kernels::MaxPool2dParams p;
  p.planes = in.dim(0) * in.dim(1);
  p.h = in.dim(2);
  p.w = in.dim(3);
  p.ho = out.dim(2);
  p.wo = out.dim(3);
  p.kernel_h = a.kernel_h;
  p.kernel_w = a.kernel_w;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.pad_h = a.pad_h;
  p.pad_w = a.pad_w;
  p.dilation_h = a.dilation_h;
  p.dilation_w = a.dilation_w;
  return std::make_unique<MaxPool2dKernel>(device, p);
}

SY_REGISTER_KERNEL(CudaKernels(), "max_pool2d", DType::kFloat32, &MakeMaxPool2d);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
