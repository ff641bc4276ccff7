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
#include "ops/pool_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class AvgPool2dKernel : public RefKernel {
 public:
  AvgPool2dKernel(const RefDevice& device, AvgPool2dAttrs attrs)
      : RefKernel(device, DType::kFloat32, 1, 1), a_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& in_shape = inputs[0]->shape();
    const int64_t planes = in_shape.dim(0) * in_shape.dim(1);
    const int64_t h = in_shape.dim(2), w = in_shape.dim(3);
    const int64_t ho = output.shape().dim(2), wo = output.shape().dim(3);
    const float* x = inputs[0]->data<float>();
    float* y = output.data<float>();
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t oh = 0; oh < ho; ++oh) {
        const int64_t h0 = oh * a_.stride_h - a_.pad_top;
        for (int64_t ow = 0; ow < wo; ++ow) {
          const int64_t w0 = ow * a_.stride_w - a_.pad_left;
          double sum = 0.0;
          int64_t inside = 0, padded = 0;
          for (int64_t i = h0; i < h0 + a_.kernel_h; ++i) {
            for (int64_t j = w0; j < w0 + a_.kernel_w; ++j) {
              if (i < h + a_.pad_bottom && j < w + a_.pad_right) ++padded;
              if (i < 0 || i >= h || j < 0 || j >= w) continue;
              sum += x[(p * h + i) * w + j];
              ++inside;
            }
          }
          const int64_t divisor = a_.count_include_pad ? padded : inside;
          y[(p * ho + oh) * wo + ow] = static_cast<float>(sum / divisor);
        }
      }
    }
  }

 private:
  AvgPool2dAttrs a_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeAvgPool2d(const Node& node,
                                                      const Graph&,
                                                      RefDevice& device) {
  absl::StatusOr<AvgPool2dAttrs> attrs =
      AvgPool2dAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<AvgPool2dKernel>(device, *attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "avg_pool2d", DType::kFloat32, &MakeAvgPool2d);

}  // namespace
}  // namespace reference
}  // namespace switchyard
