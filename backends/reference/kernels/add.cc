// Add: out[i] = a[i] + b[i] for two tensors of one shape (no broadcasting,
// as ops/add.cc defines it), in float32 and float64. A sum of two values is
// exact to one rounding, so there is nothing to gain from a wider type.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
class AddKernel : public RefKernel {
 public:
  explicit AddKernel(const RefDevice& device)
      : RefKernel(device, DTypeOf<T>(), 2, 2) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const T* a = inputs[0]->data<T>();
    const T* b = inputs[1]->data<T>();
    T* out = output.data<T>();
    for (int64_t i = 0; i < output.num_elements(); ++i) out[i] = a[i] + b[i];
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeAdd(const Node&, const Graph&,
                                                RefDevice& device) {
  return std::make_unique<AddKernel<T>>(device);
}

SY_REGISTER_KERNEL(RefKernels(), "add", DType::kFloat32, &MakeAdd<float>);
SY_REGISTER_KERNEL(RefKernels(), "add", DType::kFloat64, &MakeAdd<double>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
