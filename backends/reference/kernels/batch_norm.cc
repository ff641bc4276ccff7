// BatchNorm at inference, as torch.nn.functional.batch_norm with
// training=False, over channel dimension 1 of an [N, C, ...] input:
//
//   out[n, c, ...] = (x[n, c, ...] - mean[c]) / sqrt(var[c] + eps)
//                    * weight[c] + bias[c]
//
// Evaluated as written, in double, and rounded to float once.

#include <cmath>

#include "backends/reference/kernels/kernels.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class BatchNormKernel : public RefKernel {
 public:
  BatchNormKernel(const RefDevice& device, double epsilon)
      : RefKernel(device, DType::kFloat32, 5, 5), epsilon_(epsilon) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& shape = inputs[0]->shape();  // [N, C, ...]
    const int64_t batch = shape.dim(0), channels = shape.dim(1);
    int64_t inner = 1;  // elements per (n, c)
    for (int d = 2; d < shape.rank(); ++d) inner *= shape.dim(d);
    const float* x = inputs[0]->data<float>();
    const float* weight = inputs[1]->data<float>();
    const float* bias = inputs[2]->data<float>();
    const float* mean = inputs[3]->data<float>();
    const float* var = inputs[4]->data<float>();
    float* y = output.data<float>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const double denominator =
            std::sqrt(static_cast<double>(var[c]) + epsilon_);
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const double normalized =
              (static_cast<double>(x[base + i]) - mean[c]) / denominator;
          y[base + i] = static_cast<float>(normalized * weight[c] + bias[c]);
        }
      }
    }
  }

 private:
  double epsilon_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeBatchNorm(const Node& node,
                                                      const Graph&,
                                                      RefDevice& device) {
  absl::StatusOr<BatchNormAttrs> attrs =
      BatchNormAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<BatchNormKernel>(device, attrs->epsilon);
}

SY_REGISTER_KERNEL(RefKernels(), "batch_norm", DType::kFloat32, &MakeBatchNorm);

}  // namespace
}  // namespace reference
}  // namespace switchyard
