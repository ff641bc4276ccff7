// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d over NCHW planes (pool2d.cu):
// each kernel is one launch with parameters fixed when it is created, from
// the op's attributes and the graph's shapes.

#include <memory>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/pool2d.cuh"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

template <typename Params>
using PoolLauncher = cudaError_t (*)(const float*, float*, const Params&,
                                     cudaStream_t);

// Runs Launch(in, out, params) on the device's stream.
template <typename Params, PoolLauncher<Params> Launch>
class Pool2dKernel : public Kernel {
 public:
  Pool2dKernel(CudaDevice& device, Params params)
      : device_(device), params_(params) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(Launch(inputs[0]->data<float>(),
                                   outputs[0]->data<float>(), params_,
                                   device_.stream()),
                            device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  Params params_;
};

// The planes of the node's [N, C, H, W] input and [N, C, Ho, Wo] output.
kernels::Pool2dPlanes PlanesOf(const Node& node, const Graph& graph) {
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  kernels::Pool2dPlanes s;
  s.planes = in.dim(0) * in.dim(1);
  s.h = in.dim(2);
  s.w = in.dim(3);
  s.ho = out.dim(2);
  s.wo = out.dim(3);
  return s;
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeMaxPool2d(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(MaxPool2dAttrs a, MaxPool2dAttrs::FromAttrMap(node.attrs));
  kernels::MaxPool2dParams p;
  p.size = PlanesOf(node, graph);
  p.kernel_h = a.kernel_h;
  p.kernel_w = a.kernel_w;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.pad_h = a.pad_h;
  p.pad_w = a.pad_w;
  p.dilation_h = a.dilation_h;
  p.dilation_w = a.dilation_w;
  return std::make_unique<
      Pool2dKernel<kernels::MaxPool2dParams, &kernels::LaunchMaxPool2d>>(device,
                                                                         p);
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeAvgPool2d(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(AvgPool2dAttrs a, AvgPool2dAttrs::FromAttrMap(node.attrs));
  kernels::AvgPool2dParams p;
  p.size = PlanesOf(node, graph);
  p.kernel_h = a.kernel_h;
  p.kernel_w = a.kernel_w;
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.pad_top = a.pad_top;
  p.pad_left = a.pad_left;
  p.pad_bottom = a.pad_bottom;
  p.pad_right = a.pad_right;
  p.count_include_pad = a.count_include_pad;
  return std::make_unique<
      Pool2dKernel<kernels::AvgPool2dParams, &kernels::LaunchAvgPool2d>>(device,
                                                                         p);
}

// The output size is the graph's, which shape inference took from the
// attributes.
absl::StatusOr<std::unique_ptr<Kernel>> MakeAdaptiveAvgPool2d(
    const Node& node, const Graph& graph, CudaDevice& device) {
  kernels::AdaptiveAvgPool2dParams p;
  p.size = PlanesOf(node, graph);
  return std::make_unique<Pool2dKernel<kernels::AdaptiveAvgPool2dParams,
                                       &kernels::LaunchAdaptiveAvgPool2d>>(
      device, p);
}

SY_REGISTER_KERNEL(CudaKernels(), "max_pool2d", DType::kFloat32, &MakeMaxPool2d);
SY_REGISTER_KERNEL(CudaKernels(), "avg_pool2d", DType::kFloat32, &MakeAvgPool2d);
SY_REGISTER_KERNEL(CudaKernels(), "adaptive_avg_pool2d", DType::kFloat32,
                   &MakeAdaptiveAvgPool2d);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
