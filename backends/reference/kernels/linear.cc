// Linear: y = x W^T + b over the last dimension, as
// torch.nn.functional.linear. x is viewed as [rows, in] (rows = the product
// of its leading dimensions), W is [out, in], b is [out]:
//
//   y[r, o] = b[o] + sum_i x[r, i] * W[o, i]
//
// Each sum is accumulated in double and rounded to float once.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

class LinearKernel : public RefKernel {
 public:
  explicit LinearKernel(const RefDevice& device)
      : RefKernel(device, DType::kFloat32, 2, 3) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& x_shape = inputs[0]->shape();
    const Shape& w_shape = inputs[1]->shape();
    const int64_t in = w_shape.dim(1);
    const int64_t out = w_shape.dim(0);
    int64_t rows = 1;
    for (int d = 0; d + 1 < x_shape.rank(); ++d) rows *= x_shape.dim(d);

    const float* x = inputs[0]->data<float>();
    const float* w = inputs[1]->data<float>();
    const float* b = inputs.size() > 2 ? inputs[2]->data<float>() : nullptr;
    float* y = output.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double sum = b != nullptr ? b[o] : 0.0;
        for (int64_t i = 0; i < in; ++i) {
          sum += static_cast<double>(x[r * in + i]) * w[o * in + i];
        }
        y[r * out + o] = static_cast<float>(sum);
      }
    }
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLinear(const Node&, const Graph&,
                                                   RefDevice& device) {
  return std::make_unique<LinearKernel>(device);
}

SY_REGISTER_KERNEL(RefKernels(), "linear", DType::kFloat32, &MakeLinear);

}  // namespace
}  // namespace reference
}  // namespace switchyard
