// Softmax along one dimension, shifted by the maximum for stability.

#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/softmax_rows.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(int dim, std::shared_ptr<const CpuContext> context)
      : dim_(dim), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    ForEachSoftmaxRow(inputs[0]->shape(), dim_, *context_,
                      [&](int64_t base, int64_t n, int64_t inner) {
      float max_value = -INFINITY;
      for (int64_t i = 0; i < n; ++i) max_value = std::max(max_value, in[base + i * inner]);
      float sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float e = std::exp(in[base + i * inner] - max_value);
        out[base + i * inner] = e;
        sum += e;
      }
      for (int64_t i = 0; i < n; ++i) out[base + i * inner] /= sum;
    });
    return absl::OkStatus();
  }

 private:
  int dim_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmax(const Node& node,
                                                    const Graph& graph,
                                                    CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(const int dim, SoftmaxDim(node, graph));
  return std::make_unique<SoftmaxKernel>(dim, device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "softmax", DType::kFloat32, &MakeSoftmax);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
