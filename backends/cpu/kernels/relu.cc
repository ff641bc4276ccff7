// ReLU: max(x, 0), elementwise.

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {
namespace {

class ReluKernel : public Kernel {
 public:
  explicit ReluKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    ForEachRange(*context_, inputs[0]->num_elements(),
                 [&](int64_t begin, int64_t end) {
                   Eigen::Map<Eigen::ArrayXf>(out + begin, end - begin) =
                       Eigen::Map<const Eigen::ArrayXf>(in + begin, end - begin)
                           .max(0.0f);
                 });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "relu", DType::kFloat32,
                   [](const Node&, const Graph&, CpuDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<ReluKernel>(device.context());
                   });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
