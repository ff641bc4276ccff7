// Conv2d, as torch.nn.functional.conv2d: cross-correlation over NCHW with
// zero padding, stride, dilation and groups, by the definition:
//
//   out[n, o, oh, ow] = bias[o] + sum over c < C/groups, i < kH, j < kW of
//       in[n, g*C/groups + c, oh*sh - ph + i*dh, ow*sw - pw + j*dw]
//       * weight[o, c, i, j]
//
// where g = o / (O/groups) is the group of output channel o, and taps that
// fall in the padding contribute zero. Sums are accumulated in double.

#include "backends/reference/kernels/kernels.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class Conv2dKernel : public RefKernel {
 public:
  Conv2dKernel(const RefDevice& device, Conv2dAttrs attrs)
      : RefKernel(device, DType::kFloat32, 2, 3), a_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& in_shape = inputs[0]->shape();   // [N, C, H, W]
    const Shape& w_shape = inputs[1]->shape();    // [O, C/groups, kH, kW]
    const Shape& out_shape = output.shape();      // [N, O, Ho, Wo]
    const int64_t batch = in_shape.dim(0), channels = in_shape.dim(1);
    const int64_t h = in_shape.dim(2), w = in_shape.dim(3);
    const int64_t out_channels = w_shape.dim(0), kh = w_shape.dim(2),
                  kw = w_shape.dim(3);
    const int64_t ho = out_shape.dim(2), wo = out_shape.dim(3);
    const int64_t in_per_group = channels / a_.groups;
    const int64_t out_per_group = out_channels / a_.groups;

    const float* x = inputs[0]->data<float>();
    const float* weight = inputs[1]->data<float>();
    const float* bias = inputs.size() > 2 ? inputs[2]->data<float>() : nullptr;
    float* y = output.data<float>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t o = 0; o < out_channels; ++o) {
        const int64_t group = o / out_per_group;
        for (int64_t oh = 0; oh < ho; ++oh) {
          for (int64_t ow = 0; ow < wo; ++ow) {
            double sum = bias != nullptr ? bias[o] : 0.0;
            for (int64_t c = 0; c < in_per_group; ++c) {
              const int64_t ic = group * in_per_group + c;
              for (int64_t i = 0; i < kh; ++i) {
                const int64_t ih = oh * a_.stride_h - a_.pad_h + i * a_.dilation_h;
                if (ih < 0 || ih >= h) continue;
                for (int64_t j = 0; j < kw; ++j) {
                  const int64_t iw = ow * a_.stride_w - a_.pad_w + j * a_.dilation_w;
                  if (iw < 0 || iw >= w) continue;
                  sum += static_cast<double>(x[((n * channels + ic) * h + ih) * w + iw]) *
                         weight[((o * in_per_group + c) * kh + i) * kw + j];
                }
              }
            }
            y[((n * out_channels + o) * ho + oh) * wo + ow] = static_cast<float>(sum);
          }
        }
      }
    }
  }

 private:
  Conv2dAttrs a_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2d(const Node& node,
                                                   const Graph&,
                                                   RefDevice& device) {
  absl::StatusOr<Conv2dAttrs> attrs = ParseConv2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<Conv2dKernel>(device, *attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "conv2d", DType::kFloat32, &MakeConv2d);

}  // namespace
}  // namespace reference
}  // namespace switchyard
