// conv_integer by the definition (ONNX ConvInteger):
//
//   y[n, o, oh, ow] = sum over c < C/groups, i < kH, j < kW of
//       (x[n, g*C/groups + c, oh*sh - ph + i*dh, ow*sw - pw + j*dw] - x_zp)
//       * (w[o, c, i, j] - w_zp[o])
//
// where taps in the padding contribute 0; int64 sums wrapped to int32.

#include <memory>

#include "backends/reference/kernels/integer_products.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class ConvIntegerKernel : public Kernel {
 public:
  explicit ConvIntegerKernel(Conv2dAttrs attrs) : a_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor &x = *inputs[0], &w = *inputs[1];
    const Tensor &x_zp = *inputs[2], &w_zp = *inputs[3];
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t channels = xs.dim(1), h = xs.dim(2), width = xs.dim(3);
    const int64_t out_channels = ws.dim(0), kh = ws.dim(2), kw = ws.dim(3);
    const int64_t in_per_group = channels / a_.groups;
    const int64_t out_per_group = out_channels / a_.groups;
    int32_t* y = outputs[0]->data<int32_t>();
    for (int64_t n = 0; n < ys.dim(0); ++n) {
      for (int64_t o = 0; o < out_channels; ++o) {
        const int64_t group = o / out_per_group;
        for (int64_t oh = 0; oh < ys.dim(2); ++oh) {
          for (int64_t ow = 0; ow < ys.dim(3); ++ow) {
            int64_t sum = 0;
            for (int64_t c = 0; c < in_per_group; ++c) {
              const int64_t ic = group * in_per_group + c;
              for (int64_t i = 0; i < kh; ++i) {
                const int64_t ih = oh * a_.stride_h - a_.pad_h + i * a_.dilation_h;
                if (ih < 0 || ih >= h) continue;
                for (int64_t j = 0; j < kw; ++j) {
                  const int64_t iw = ow * a_.stride_w - a_.pad_w + j * a_.dilation_w;
                  if (iw < 0 || iw >= width) continue;
                  sum += (EightBit(x, ((n * channels + ic) * h + ih) * width + iw) -
                          ZeroPoint(x_zp, 0)) *
                         (EightBit(w, ((o * in_per_group + c) * kh + i) * kw + j) -
                          ZeroPoint(w_zp, o));
                }
              }
            }
            y[((n * out_channels + o) * ys.dim(2) + oh) * ys.dim(3) + ow] = WrapToInt32(sum);
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  Conv2dAttrs a_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeConvInteger(const Node& node, const Graph&,
                                                        RefDevice&) {
  absl::StatusOr<Conv2dAttrs> attrs = ParseConv2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ConvIntegerKernel>(*attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "conv_integer", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(RefKernels(), "conv_integer", DType::kInt8, &MakeConvInteger);

}  // namespace
}  // namespace reference
}  // namespace switchyard
