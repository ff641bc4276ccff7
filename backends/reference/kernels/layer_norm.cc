// LayerNorm, as ONNX LayerNormalization's Y (opset 17): with n the number
// of elements of input[axis:], each of the input's consecutive slices of n
// values is normalized:
//
//   mean = sum(x) / n, var = sum((x - mean)^2) / n
//   y[t] = (x[t] - mean) / sqrt(var + epsilon) * scale[t] + bias[t]
//
// In double, rounded once.

#include <cmath>

#include "backends/reference/kernels/kernels.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class LayerNormKernel : public RefKernel {
 public:
  LayerNormKernel(const RefDevice& device, double epsilon)
      : RefKernel(device, DType::kFloat32, 2, 3), epsilon_(epsilon) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const int64_t n = inputs[1]->shape().num_elements();
    if (n == 0) return;
    const int64_t rows = inputs[0]->shape().num_elements() / n;
    const float* x = inputs[0]->data<float>();
    const float* scale = inputs[1]->data<float>();
    const float* bias = inputs.size() > 2 ? inputs[2]->data<float>() : nullptr;
    float* y = output.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * n;
      double mean = 0.0;
      for (int64_t t = 0; t < n; ++t) mean += row[t];
      mean /= static_cast<double>(n);
      double var = 0.0;
      for (int64_t t = 0; t < n; ++t) var += (row[t] - mean) * (row[t] - mean);
      var /= static_cast<double>(n);
      const double inv_std = 1.0 / std::sqrt(var + epsilon_);
      for (int64_t t = 0; t < n; ++t) {
        double v = (row[t] - mean) * inv_std * scale[t];
        if (bias != nullptr) v += bias[t];
        y[r * n + t] = static_cast<float>(v);
      }
    }
  }

 private:
  double epsilon_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLayerNorm(const Node& node,
                                                      const Graph&,
                                                      RefDevice& device) {
  absl::StatusOr<LayerNormAttrs> attrs =
      LayerNormAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<LayerNormKernel>(device, attrs->epsilon);
}

SY_REGISTER_KERNEL(RefKernels(), "layer_norm", DType::kFloat32, &MakeLayerNorm);

}  // namespace
}  // namespace reference
}  // namespace switchyard
