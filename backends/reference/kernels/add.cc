// Add: out[i] = a[i] + b[i] for two tensors of one shape (no broadcasting,
// as ops/add.cc defines it). A float sum is exact to one rounding, so there
// is nothing to gain from double.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

class AddKernel : public RefKernel {
 public:
  explicit AddKernel(Device device) : RefKernel(std::move(device), 2, 2) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    float* out = output.data<float>();
    for (int64_t i = 0; i < output.num_elements(); ++i) out[i] = a[i] + b[i];
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> MakeAddKernel(const Node&, const Graph&,
                                                      const Device& device) {
  return std::make_unique<AddKernel>(device);
}

}  // namespace reference
}  // namespace switchyard
