// conv_transpose2d on CUDA in float32 (device code: conv_transpose2d.cu),
// a direct gather per output element: simple and exact in the CPU's
// summation terms, not cuDNN's speed (Mask R-CNN has one such layer).

#include <memory>

#include "backends/cuda/kernels/conv_transpose2d.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/conv_transpose_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class ConvTranspose2dKernel : public Kernel {
 public:
  ConvTranspose2dKernel(const ConvTranspose2dAttrs& attrs, CudaDevice& device)
      : a_(attrs), device_(device) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& xs = inputs[0]->shape();
    const Shape& ws = inputs[1]->shape();
    const Shape& ys = outputs[0]->shape();
    kernels::ConvTranspose2dParams p;
    p.n = xs.dim(0);
    p.c = xs.dim(1);
    p.h = xs.dim(2);
    p.w = xs.dim(3);
    p.o = ys.dim(1);
    p.oh = ys.dim(2);
    p.ow = ys.dim(3);
    p.kh = ws.dim(2);
    p.kw = ws.dim(3);
    p.groups = a_.groups;
    p.stride_h = a_.stride_h;
    p.stride_w = a_.stride_w;
    p.pad_top = a_.pad_top;
    p.pad_left = a_.pad_left;
    p.dilation_h = a_.dilation_h;
    p.dilation_w = a_.dilation_w;
    const bool has_bias = inputs.size() > 2 && inputs[2] != nullptr && inputs[2]->defined();
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchConvTranspose2d(inputs[0]->data<float>(), inputs[1]->data<float>(),
                                       has_bias ? inputs[2]->data<float>() : nullptr,
                                       outputs[0]->data<float>(), p, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  ConvTranspose2dAttrs a_;
  CudaDevice& device_;
};

SY_REGISTER_KERNEL(CudaKernels(), "conv_transpose2d", DType::kFloat32,
                   (&MakeKernelWithAttrs<ConvTranspose2dKernel, ConvTranspose2dAttrs,
                                         CudaDevice>));

}  // namespace
}  // namespace cuda
}  // namespace switchyard
