// MaxPool2d, as torch.nn.functional.max_pool2d over NCHW:
//
//   out[n, c, oh, ow] = max over i < kH, j < kW of
//       in[n, c, oh*sh - ph + i*dh, ow*sw - pw + j*dw]
//
// Taps in the padding (or, with ceil_mode, past the end) are skipped: they
// never win. A NaN in the window makes the result NaN, as in PyTorch. The
// output size comes from shape inference (PooledLength, ops/pool_geometry.h).

#include <cmath>
#include <limits>

#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/pool2d.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class MaxPool2dKernel : public RefKernel {
 public:
  MaxPool2dKernel(MaxPool2dAttrs attrs, const RefDevice& device)
      : RefKernel(device, DType::kFloat32, 1, 1), a_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    ForEachPooledCell(
        *inputs[0], output,
        [&](const float* plane, int64_t h, int64_t w, int64_t oh, int64_t ow) {
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < a_.kernel_h; ++i) {
            const int64_t ih = oh * a_.stride_h - a_.pad_h + i * a_.dilation_h;
            if (ih < 0 || ih >= h) continue;
            for (int64_t j = 0; j < a_.kernel_w; ++j) {
              const int64_t iw = ow * a_.stride_w - a_.pad_w + j * a_.dilation_w;
              if (iw < 0 || iw >= w) continue;
              const float v = plane[ih * w + iw];
              // Once best is NaN, v > best is false: NaN sticks.
              if (v > best || std::isnan(v)) best = v;
            }
          }
          return best;
        });
  }

 private:
  MaxPool2dAttrs a_;
};

SY_REGISTER_KERNEL(
    RefKernels(), "max_pool2d", DType::kFloat32,
    &MakeKernelWithAttrs<MaxPool2dKernel, MaxPool2dAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
