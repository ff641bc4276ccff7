// AdaptiveAvgPool2d, as torch.nn.functional.adaptive_avg_pool2d over NCHW:
// output cell (i, j) is the mean of input rows [AdaptiveStart(i, H, Ho),
// AdaptiveEnd(i, H, Ho)) and the same rule for columns
// (ops/pool_geometry.h: start = floor(i*H/Ho), end = ceil((i+1)*H/Ho)).
// Windows may overlap, and cover one input cell many times when the output
// is larger than the input. Sums are accumulated in double.

#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/pool2d.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class AdaptiveAvgPool2dKernel : public RefKernel {
 public:
  explicit AdaptiveAvgPool2dKernel(const RefDevice& device)
      : RefKernel(device, DType::kFloat32, 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const int64_t ho = output.shape().dim(2), wo = output.shape().dim(3);
    ForEachPooledCell(
        *inputs[0], output,
        [&](const float* plane, int64_t h, int64_t w, int64_t i, int64_t j) {
          const int64_t h0 = AdaptiveStart(i, h, ho), h1 = AdaptiveEnd(i, h, ho);
          const int64_t w0 = AdaptiveStart(j, w, wo), w1 = AdaptiveEnd(j, w, wo);
          double sum = 0.0;
          for (int64_t r = h0; r < h1; ++r) {
            for (int64_t c = w0; c < w1; ++c) sum += plane[r * w + c];
          }
          return static_cast<float>(
              sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        });
  }
};

SY_REGISTER_KERNEL(RefKernels(), "adaptive_avg_pool2d", DType::kFloat32,
                   &MakeKernel<AdaptiveAvgPool2dKernel, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
