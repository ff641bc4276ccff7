// AvgPool2d, as ONNX AveragePool over NCHW with pads [top, left, bottom,
// right]:
//
//   out[n, c, oh, ow] = sum of in[n, c, y, x] over the window's input
//       elements / divisor
//
// where the window's rows are [oh*sh - top, oh*sh - top + kH) (columns
// alike). The divisor is the number of input elements in the window, or with
// count_include_pad the window's size within the padded input
// [-top, H + bottom) x [-left, W + right) (a ceil_mode window reaching past
// the end padding counts only up to it). Written out here rather than taken
// from ops/pool_geometry.h, so the oracle does not share a bug with the
// backends it checks. Sums in double, rounded once.

#include <algorithm>

#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/pool2d.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class AvgPool2dKernel : public RefKernel {
 public:
  AvgPool2dKernel(AvgPool2dAttrs attrs, const RefDevice& device)
      : RefKernel(device, DType::kFloat32, 1, 1), a_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    ForEachPooledCell(
        *inputs[0], output,
        [&](const float* plane, int64_t h, int64_t w, int64_t oh, int64_t ow) {
          const int64_t h0 = oh * a_.stride_h - a_.pad_top;
          const int64_t w0 = ow * a_.stride_w - a_.pad_left;
          double sum = 0.0;
          int64_t inside = 0, padded = 0;
          for (int64_t i = h0; i < h0 + a_.kernel_h; ++i) {
            for (int64_t j = w0; j < w0 + a_.kernel_w; ++j) {
              if (i < h + a_.pad_bottom && j < w + a_.pad_right) ++padded;
              if (i < 0 || i >= h || j < 0 || j >= w) continue;
              sum += plane[i * w + j];
              ++inside;
            }
          }
          const int64_t divisor = a_.count_include_pad ? padded : inside;
          return static_cast<float>(sum / divisor);
        });
  }

 private:
  AvgPool2dAttrs a_;
};

SY_REGISTER_KERNEL(
    RefKernels(), "avg_pool2d", DType::kFloat32,
    &MakeKernelWithAttrs<AvgPool2dKernel, AvgPool2dAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
