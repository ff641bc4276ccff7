// conv_transpose2d from its definition: every input element, times every
// kernel tap, added into the output element it lands on (before padding
// is removed: i * stride + k * dilation along each axis), in double; then
// the padding's rows and columns are dropped and the bias added. The
// scatter form of the definition, where the CPU kernel multiplies first
// and the CUDA kernel gathers.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/conv_transpose_attrs.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
class ConvTranspose2dKernel : public MovementKernel {
 public:
  ConvTranspose2dKernel(const ConvTranspose2dAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "conv_transpose2d", 2, 3, 1), a_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Shape& xs = inputs[0]->shape();
    const Shape& ws = inputs[1]->shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t n = xs.dim(0), c = xs.dim(1), h = xs.dim(2), w = xs.dim(3);
    const int64_t kh = ws.dim(2), kw = ws.dim(3), o_g = ws.dim(1);
    const int64_t c_g = c / a_.groups, channels = ys.dim(1);
    const int64_t oh = ys.dim(2), ow = ys.dim(3);
    // The full output, before padding is removed.
    const int64_t full_h = oh + a_.pad_top + a_.pad_bottom;
    const int64_t full_w = ow + a_.pad_left + a_.pad_right;
    const T* x = inputs[0]->data<T>();
    const T* weight = inputs[1]->data<T>();
    const bool has_bias = inputs.size() > 2 && inputs[2] != nullptr && inputs[2]->defined();
    T* y = outputs[0]->data<T>();
    std::vector<double> full(static_cast<size_t>(full_h * full_w));
    for (int64_t image = 0; image < n; ++image) {
      for (int64_t oc = 0; oc < channels; ++oc) {
        const int64_t g = oc / o_g, o = oc % o_g;
        std::fill(full.begin(), full.end(), 0.0);
        for (int64_t ic = g * c_g; ic < (g + 1) * c_g; ++ic) {
          for (int64_t iy = 0; iy < h; ++iy) {
            for (int64_t ix = 0; ix < w; ++ix) {
              const double v = x[((image * c + ic) * h + iy) * w + ix];
              for (int64_t ky = 0; ky < kh; ++ky) {
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t fy = iy * a_.stride_h + ky * a_.dilation_h;
                  const int64_t fx = ix * a_.stride_w + kx * a_.dilation_w;
                  if (fy >= full_h || fx >= full_w) continue;  // only output_padding's room
                  full[fy * full_w + fx] +=
                      v * double{weight[((ic * o_g + o) * kh + ky) * kw + kx]};
                }
              }
            }
          }
        }
        const double b = has_bias ? double{inputs[2]->data<T>()[oc]} : 0.0;
        for (int64_t oy = 0; oy < oh; ++oy) {
          for (int64_t ox = 0; ox < ow; ++ox) {
            y[((image * channels + oc) * oh + oy) * ow + ox] = static_cast<T>(
                full[(oy + a_.pad_top) * full_w + ox + a_.pad_left] + b);
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  ConvTranspose2dAttrs a_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeConvTranspose2d(const Node& node, const Graph& graph,
                                                            RefDevice& device) {
  return MakeKernelWithAttrs<ConvTranspose2dKernel<T>, ConvTranspose2dAttrs, RefDevice>(
      node, graph, device);
}

SY_REGISTER_KERNEL_FOR_TYPES(RefKernels(), "conv_transpose2d", MakeConvTranspose2d, float,
                             double);

}  // namespace
}  // namespace reference
}  // namespace switchyard
