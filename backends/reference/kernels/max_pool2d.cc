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
#include "ops/pool_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class MaxPool2dKernel : public RefKernel {
 public:
  MaxPool2dKernel(const RefDevice& device, MaxPool2dAttrs attrs)
      : RefKernel(device, DType::kFloat32, 1, 1), a_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& in_shape = inputs[0]->shape();
    const int64_t planes = in_shape.dim(0) * in_shape.dim(1);
    const int64_t h = in_shape.dim(2), w = in_shape.dim(3);
    const int64_t ho = output.shape().dim(2), wo = output.shape().dim(3);
    const float* x = inputs[0]->data<float>();
    float* y = output.data<float>();
    for (int64_t p = 0; p < planes; ++p) {
      const float* plane = x + p * h * w;
      for (int64_t oh = 0; oh < ho; ++oh) {
        for (int64_t ow = 0; ow < wo; ++ow) {
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
          y[(p * ho + oh) * wo + ow] = best;
        }
      }
    }
  }

 private:
  MaxPool2dAttrs a_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMaxPool2d(const Node& node,
                                                      const Graph&,
                                                      RefDevice& device) {
  absl::StatusOr<MaxPool2dAttrs> attrs = ParseMaxPool2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<MaxPool2dKernel>(device, *attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "max_pool2d", DType::kFloat32, &MakeMaxPool2d);

}  // namespace
}  // namespace reference
}  // namespace switchyard
