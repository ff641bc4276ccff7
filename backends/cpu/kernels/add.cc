// Add: elementwise sum of two tensors of one shape.

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {
namespace {

class AddKernel : public Kernel {
 public:
  explicit AddKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    float* out = outputs[0]->data<float>();
    ForEachRange(*context_, outputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   const int64_t n = end - begin;
                   Eigen::Map<Eigen::ArrayXf>(out + begin, n) =
                       Eigen::Map<const Eigen::ArrayXf>(a + begin, n) +
                       Eigen::Map<const Eigen::ArrayXf>(b + begin, n);
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "add", DType::kFloat32,
                   [](const Node&, const Graph&, CpuDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<AddKernel>(device.context());
                   });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
