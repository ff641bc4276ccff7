// ReLU: out = x < 0 ? 0 : x, elementwise, in float32 and float64. NaN stays
// NaN, as in PyTorch (NaN < 0 is false).

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
class ReluKernel : public RefKernel {
 public:
  explicit ReluKernel(const RefDevice& device)
      : RefKernel(device, DTypeOf<T>(), 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const T* x = inputs[0]->data<T>();
    T* out = output.data<T>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      out[i] = x[i] < T(0) ? T(0) : x[i];
    }
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeRelu(const Node&, const Graph&,
                                                 RefDevice& device) {
  return std::make_unique<ReluKernel<T>>(device);
}

SY_REGISTER_KERNEL(RefKernels(), "relu", DType::kFloat32, &MakeRelu<float>);
SY_REGISTER_KERNEL(RefKernels(), "relu", DType::kFloat64, &MakeRelu<double>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
