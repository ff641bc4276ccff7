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

// The launch parameters from the attributes, field by field in the order
// the attribute and parameter structs share (MakePool2d adds the planes).
kernels::MaxPool2dParams ParamsOf(const MaxPool2dAttrs& a) {
  return {{},      a.kernel_h, a.kernel_w,   a.stride_h,  a.stride_w,
          a.pad_h, a.pad_w,    a.dilation_h, a.dilation_w};
}
kernels::AvgPool2dParams ParamsOf(const AvgPool2dAttrs& a) {
  return {{},          a.kernel_h,         a.kernel_w, a.stride_h,
          a.stride_w,  a.pad_top,          a.pad_left, a.pad_bottom,
          a.pad_right, a.count_include_pad};
}
// The output size is the graph's, which shape inference took from the
// attributes.
kernels::AdaptiveAvgPool2dParams ParamsOf(const AdaptiveAvgPool2dAttrs&) {
  return {};
}

// A kernel creator: Params from the node's attributes and its planes.
template <typename Attrs, typename Params, PoolLauncher<Params> Launch>
absl::StatusOr<std::unique_ptr<Kernel>> MakePool2d(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(Attrs a, Attrs::FromAttrMap(node.attrs));
  Params p = ParamsOf(a);
  p.size = PlanesOf(node, graph);
  return std::make_unique<Pool2dKernel<Params, Launch>>(device, p);
}

SY_REGISTER_KERNEL(CudaKernels(), "max_pool2d", DType::kFloat32,
                   (&MakePool2d<MaxPool2dAttrs, kernels::MaxPool2dParams,
                                &kernels::LaunchMaxPool2d>));
SY_REGISTER_KERNEL(CudaKernels(), "avg_pool2d", DType::kFloat32,
                   (&MakePool2d<AvgPool2dAttrs, kernels::AvgPool2dParams,
                                &kernels::LaunchAvgPool2d>));
SY_REGISTER_KERNEL(
    CudaKernels(), "adaptive_avg_pool2d", DType::kFloat32,
    (&MakePool2d<AdaptiveAvgPool2dAttrs, kernels::AdaptiveAvgPool2dParams,
                 &kernels::LaunchAdaptiveAvgPool2d>));

}  // namespace
}  // namespace cuda
}  // namespace switchyard
