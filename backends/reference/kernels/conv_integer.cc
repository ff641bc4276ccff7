// conv_integer by the definition (ONNX ConvInteger):
//
//   y[n, o, oh, ow] = sum over c < C/groups, i < kH, j < kW of
//       (x[n, g*C/groups + c, oh*sh - ph + i*dh, ow*sw - pw + j*dw] - x_zp)
//       * (w[o, c, i, j] - w_zp[o])
//
// where taps in the padding contribute 0; int64 sums wrapped to int32.
// qlinear_conv adds its int32 bias to that sum (wrapping) and requantizes
// each element (ops/linear_quantization.h: RequantizeElement).

#include <memory>

#include "backends/reference/kernels/integer_products.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/conv_attrs.h"
#include "ops/linear_quantization.h"

namespace switchyard {
namespace reference {
namespace {

class ConvIntegerKernel : public Kernel {
 public:
  ConvIntegerKernel(Conv2dAttrs attrs, bool requantize)
      : a_(attrs), requantize_(requantize) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    // qlinear_conv's operands are conv_integer's with bias at 2.
    const Tensor &x = *inputs[0], &w = *inputs[1];
    const Tensor &x_zp = *inputs[requantize_ ? 3 : 2], &w_zp = *inputs[requantize_ ? 4 : 3];
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t channels = xs.dim(1), h = xs.dim(2), width = xs.dim(3);
    const int64_t out_channels = ws.dim(0), kh = ws.dim(2), kw = ws.dim(3);
    const int64_t in_per_group = channels / a_.groups;
    const int64_t out_per_group = out_channels / a_.groups;
    Tensor& y = *outputs[0];
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
            const int64_t at = ((n * out_channels + o) * ys.dim(2) + oh) * ys.dim(3) + ow;
            if (!requantize_) {
              y.data<int32_t>()[at] = WrapToInt32(sum);
            } else {
              Requantize(WrapToInt32(sum + inputs[2]->data<int32_t>()[o]), o, *inputs[5],
                         *inputs[6], y, at);
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  // y[at] = channel o's requantized `acc`.
  static void Requantize(int32_t acc, int64_t o, const Tensor& multiplier, const Tensor& zp,
                         Tensor& y, int64_t at) {
    const float m = multiplier.data<float>()[multiplier.num_elements() == 1 ? 0 : o];
    const int32_t z = static_cast<int32_t>(EightBit(zp, 0));
    if (y.dtype() == DType::kUInt8) {
      y.data<uint8_t>()[at] = RequantizeElement<uint8_t>(acc, m, z);
    } else {
      y.data<int8_t>()[at] = RequantizeElement<int8_t>(acc, m, z);
    }
  }

  Conv2dAttrs a_;
  bool requantize_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeConvInteger(const Node& node, const Graph&,
                                                        RefDevice&) {
  absl::StatusOr<Conv2dAttrs> attrs = ParseConv2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ConvIntegerKernel>(*attrs, node.op == "qlinear_conv");
}

SY_REGISTER_KERNEL(RefKernels(), "conv_integer", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(RefKernels(), "conv_integer", DType::kInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(RefKernels(), "qlinear_conv", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(RefKernels(), "qlinear_conv", DType::kInt8, &MakeConvInteger);

}  // namespace
}  // namespace reference
}  // namespace switchyard
