// ReLU: max(x, 0), elementwise.

#include "Eigen/Core"
#include "backends/cpu/cpu_kernel_registry.h"
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

[[maybe_unused]] const bool kRegistered = RegisterCpuKernel(
    "relu", [](const Node&, const Graph&, std::shared_ptr<const CpuContext> c)
                -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<ReluKernel>(std::move(c));
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
