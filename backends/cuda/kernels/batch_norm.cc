// BatchNorm at inference over channel dimension 1 (kernels/batch_norm.cu):
// y = (x - mean) / sqrt(var + eps) * weight + bias, folded per channel into
// y = x * scale + shift. The kernel keeps its own scratch for the 2 * C
// folded values, recomputed each run (the parameters are operands, so they
// may change between runs).

#include "backends/cuda/kernels/batch_norm.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class BatchNormKernel : public Kernel {
 public:
  BatchNormKernel(CudaDevice& device, double epsilon, std::shared_ptr<Buffer> scale_shift)
      : device_(device), epsilon_(epsilon), scale_shift_(std::move(scale_shift)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();  // [N, C, ...]
    int64_t inner = 1;
    for (int d = 2; d < shape.rank(); ++d) inner *= shape.dim(d);
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchBatchNorm(
            inputs[0]->data<float>(), inputs[1]->data<float>(), inputs[2]->data<float>(),
            inputs[3]->data<float>(), inputs[4]->data<float>(), epsilon_,
            static_cast<float*>(scale_shift_->data()), outputs[0]->data<float>(),
            shape.dim(0), shape.dim(1), inner, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  const double epsilon_;
  const std::shared_ptr<Buffer> scale_shift_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeBatchNorm(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(BatchNormAttrs attrs, BatchNormAttrs::FromAttrMap(node.attrs));
  const int64_t channels = graph.value(node.inputs[0]).shape->dim(1);
  SY_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scale_shift,
                      device.Allocate(2 * channels * sizeof(float)));
  return std::make_unique<BatchNormKernel>(device, attrs.epsilon, std::move(scale_shift));
}

SY_REGISTER_KERNEL(CudaKernels(), "batch_norm", DType::kFloat32, &MakeBatchNorm);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
