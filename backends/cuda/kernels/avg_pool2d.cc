// AvgPool2d over NCHW planes (kernels/avg_pool2d.cu).

#include "backends/cuda/kernels/nn_family_launch.h"
#include "backends/cuda/kernels/simple_kernel.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class AvgPool2dKernel : public Kernel {
 public:
  AvgPool2dKernel(CudaDevice& device, kernels::AvgPool2dParams params)
      : device_(device), params_(params) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(kernels::LaunchAvgPool2d(inputs[0]->data<float>(),
                                                     outputs[0]->data<float>(),
                                                     params_, device_.stream()),
                            device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::AvgPool2dParams params_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeAvgPool2d(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(AvgPool2dAttrs a,
                      AvgPool2dAttrs::FromAttrMap(node.attrs));
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  kernels::AvgPool2dParams p;
  p.planes = in.dim(0) * in.dim(1);
  p.h = in.dim(2);
  p.w = in.dim(3);
  p.ho = out.dim(2);
  p.wo = out.dim(3);
  p.kernel_h = a.kernel_h;
  p.kernel_w = a.kernel_w;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.pad_top = a.pad_top;
  p.pad_left = a.pad_left;
  p.pad_bottom = a.pad_bottom;
  p.pad_right = a.pad_right;
  p.count_include_pad = a.count_include_pad;
  return std::make_unique<AvgPool2dKernel>(device, p);
}

SY_REGISTER_KERNEL(CudaKernels(), "avg_pool2d", DType::kFloat32,
                   &MakeAvgPool2d);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
