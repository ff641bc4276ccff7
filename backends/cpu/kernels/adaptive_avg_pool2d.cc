// AdaptiveAvgPool2d: output cell (i, j) averages input rows
// [floor(i*H/OH), ceil((i+1)*H/OH)) and the same rule for columns.

#include "backends/cpu/cpu_device.h"
#include "core/tensor.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

class AdaptiveAvgPool2dKernel : public Kernel {
 public:
  explicit AdaptiveAvgPool2dKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    const int64_t planes = in.dim(0) * in.dim(1);
    const int64_t h = in.dim(2), w = in.dim(3), ho = out.dim(2), wo = out.dim(3);
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    context_->ParallelRange(planes, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float* plane = src + p * h * w;
        for (int64_t i = 0; i < ho; ++i) {
          const int64_t h0 = AdaptiveStart(i, h, ho), h1 = AdaptiveEnd(i, h, ho);
          for (int64_t j = 0; j < wo; ++j) {
            const int64_t w0 = AdaptiveStart(j, w, wo), w1 = AdaptiveEnd(j, w, wo);
            float sum = 0;
            for (int64_t y = h0; y < h1; ++y) {
              for (int64_t x = w0; x < w1; ++x) sum += plane[y * w + x];
            }
            dst[(p * ho + i) * wo + j] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "adaptive_avg_pool2d", DType::kFloat32,
                   [](const Node&, const Graph&, CpuDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<AdaptiveAvgPool2dKernel>(
                         device.context());
                   });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
