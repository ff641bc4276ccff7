// LayerNorm over the trailing dimensions (kernels/layer_norm.cu).

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/layer_norm.cuh"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class LayerNormKernel : public Kernel {
 public:
  LayerNormKernel(CudaDevice& device, int64_t rows, int64_t n, float epsilon,
                  bool has_bias)
      : device_(device),
        rows_(rows),
        n_(n),
        epsilon_(epsilon),
        has_bias_(has_bias) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchLayerNorm(
            inputs[0]->data<float>(), inputs[1]->data<float>(),
            has_bias_ ? inputs[2]->data<float>() : nullptr,
            outputs[0]->data<float>(), rows_, n_, epsilon_, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  int64_t rows_, n_;
  float epsilon_;
  bool has_bias_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLayerNorm(const Node& node,
                                                      const Graph& graph,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(LayerNormAttrs a,
                      LayerNormAttrs::FromAttrMap(node.attrs));
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const int64_t n = graph.value(node.inputs[1]).shape->num_elements();
  const int64_t rows = n == 0 ? 0 : in.num_elements() / n;
  return std::make_unique<LayerNormKernel>(
      device, rows, n, static_cast<float>(a.epsilon), node.inputs.size() > 2);
}

SY_REGISTER_KERNEL(CudaKernels(), "layer_norm", DType::kFloat32,
                   &MakeLayerNorm);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
