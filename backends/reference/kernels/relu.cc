// ReLU: out = x < 0 ? 0 : x, elementwise. NaN stays NaN, as in PyTorch
// (NaN < 0 is false).

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

class ReluKernel : public RefKernel {
 public:
  explicit ReluKernel(Device device) : RefKernel(std::move(device), 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const float* x = inputs[0]->data<float>();
    float* out = output.data<float>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      out[i] = x[i] < 0.0f ? 0.0f : x[i];
    }
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> MakeReluKernel(const Node&, const Graph&,
                                                       const Device& device) {
  return std::make_unique<ReluKernel>(device);
}

}  // namespace reference
}  // namespace switchyard
