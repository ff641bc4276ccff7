// Softmax along one dimension (kernels/softmax.cu).

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/softmax.cuh"
#include "ops/tensor_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(CudaDevice& device, int dim) : device_(device), dim_(dim) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim_; ++d) outer *= shape.dim(d);
    for (int d = dim_ + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchSoftmax(inputs[0]->data<float>(), outputs[0]->data<float>(),
                               outer, shape.dim(dim_), inner, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  int dim_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmax(const Node& node, const Graph& graph,
                                                    CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(SoftmaxAttrs attrs, SoftmaxAttrs::FromAttrMap(node.attrs));
  const int64_t dim = attrs.dim;
  const int rank = graph.value(node.inputs[0]).shape->rank();
  const int wrapped = static_cast<int>(dim < 0 ? dim + rank : dim);
  return std::make_unique<SoftmaxKernel>(device, wrapped);
}

SY_REGISTER_KERNEL(CudaKernels(), "softmax", DType::kFloat32, &MakeSoftmax);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
