// conv_transpose2d as a GEMM and a scatter ("col2im"), per image and
// group: col = weight_g^T [O_g kH kW, C_g] x input_g [C_g, H W] (Eigen),
// then each column's taps are added into the output at
// i * stride - pad + k * dilation (ops/conv_transpose_geometry.h's view
// turned around), then the bias. Images and groups write disjoint output
// planes, so they run on the context's threads.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/conv_transpose_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

template <typename T>
class ConvTranspose2dKernel : public Kernel {
 public:
  ConvTranspose2dKernel(const ConvTranspose2dAttrs& attrs, const CpuDevice& device)
      : a_(attrs), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Shape& xs = inputs[0]->shape();
    const Shape& ws = inputs[1]->shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t n = xs.dim(0), c = xs.dim(1), h = xs.dim(2), w = xs.dim(3);
    const int64_t kh = ws.dim(2), kw = ws.dim(3);
    const int64_t groups = a_.groups, c_g = c / groups, o_g = ws.dim(1);
    const int64_t oh = ys.dim(2), ow = ys.dim(3);
    const T* x = inputs[0]->data<T>();
    const T* weight = inputs[1]->data<T>();
    const T* bias = inputs.size() > 2 && inputs[2] != nullptr && inputs[2]->defined()
                        ? inputs[2]->data<T>()
                        : nullptr;
    T* y = outputs[0]->data<T>();
    context_->ParallelRange(n * groups, [&](int64_t first, int64_t last) {
      for (int64_t task = first; task < last; ++task) {
        const int64_t image = task / groups, g = task % groups;
        Eigen::Map<const Matrix> in(x + (image * c + g * c_g) * h * w, c_g, h * w);
        Eigen::Map<const Matrix> wg(weight + g * c_g * o_g * kh * kw, c_g, o_g * kh * kw);
        const Matrix col = wg.transpose() * in;  // [o_g kh kw, h w]
        T* out = y + (image * groups + g) * o_g * oh * ow;
        for (int64_t o = 0; o < o_g; ++o) {
          T* plane = out + o * oh * ow;
          const T b = bias != nullptr ? bias[g * o_g + o] : T(0);
          for (int64_t i = 0; i < oh * ow; ++i) plane[i] = b;
          for (int64_t ky = 0; ky < kh; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const T* row = col.data() + ((o * kh + ky) * kw + kx) * h * w;
              for (int64_t iy = 0; iy < h; ++iy) {
                const int64_t oy = iy * a_.stride_h - a_.pad_top + ky * a_.dilation_h;
                if (oy < 0 || oy >= oh) continue;
                for (int64_t ix = 0; ix < w; ++ix) {
                  const int64_t ox = ix * a_.stride_w - a_.pad_left + kx * a_.dilation_w;
                  if (ox >= 0 && ox < ow) plane[oy * ow + ox] += row[iy * w + ix];
                }
              }
            }
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  ConvTranspose2dAttrs a_;
  std::shared_ptr<const CpuContext> context_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeConvTranspose2d(const Node& node, const Graph& graph,
                                                            CpuDevice& device) {
  return MakeKernelWithAttrs<ConvTranspose2dKernel<T>, ConvTranspose2dAttrs, CpuDevice>(node, graph,
                                                                                        device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "conv_transpose2d", MakeConvTranspose2d, float, double);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
