// conv_integer (ONNX ConvInteger) as a GEMM: the weights widened less their
// zero points once per run, then for each task (image, group, block of
// output positions) the window's taps gathered (im2col) less the input's
// zero point, padding as 0, and multiplied exactly
// (exact_integer_product.h) into the block of the output.

#include <algorithm>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/exact_integer_product.h"
#include "backends/cpu/kernels/integer_operands.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace cpu {
namespace {


// Output positions per task: enough work per GEMM, bounded im2col memory.
constexpr int64_t kPositionsPerTask = 256;

class ConvIntegerKernel : public Kernel {
 public:
  ConvIntegerKernel(Conv2dAttrs attrs, std::shared_ptr<const CpuContext> context)
      : a_(attrs), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const Tensor& w = *inputs[1];
    const Tensor& x_zp = *inputs[2];
    const Tensor& w_zp = *inputs[3];
    Tensor& y = *outputs[0];
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const int64_t batch = xs.dim(0), channels = xs.dim(1), h = xs.dim(2),
                  width = xs.dim(3);
    const int64_t out_channels = ws.dim(0), kh = ws.dim(2), kw = ws.dim(3);
    const int64_t ho = y.shape().dim(2), wo = y.shape().dim(3);
    const int64_t positions = ho * wo;
    const int64_t groups = a_.groups;
    const int64_t in_per_group = channels / groups;
    const int64_t out_per_group = out_channels / groups;
    const int64_t taps = in_per_group * kh * kw;
    if (y.num_elements() == 0) return absl::OkStatus();

    FloatRows weights(out_channels, taps);
    WidenLessZeroPoint(w, 0, out_channels, taps, w_zp, /*per_row=*/true, 0,
                       weights.data());
    const int32_t input_zp = ZeroPointOf(x_zp, 0);
    int32_t* out = y.data<int32_t>();

    const int64_t blocks = (positions + kPositionsPerTask - 1) / kPositionsPerTask;
    auto task = [&](int64_t t) {
      const int64_t block = t % blocks;
      const int64_t group = (t / blocks) % groups;
      const int64_t n = t / blocks / groups;
      const int64_t p0 = block * kPositionsPerTask;
      const int64_t p1 = std::min(positions, p0 + kPositionsPerTask);
      FloatRows columns(taps, p1 - p0), partial;
      for (int64_t c = 0; c < in_per_group; ++c) {
        const int64_t plane = (n * channels + group * in_per_group + c) * h * width;
        for (int64_t i = 0; i < kh; ++i) {
          for (int64_t j = 0; j < kw; ++j) {
            float* row = columns.data() + ((c * kh + i) * kw + j) * (p1 - p0);
            for (int64_t p = p0; p < p1; ++p) {
              const int64_t ih = (p / wo) * a_.stride_h - a_.pad_h + i * a_.dilation_h;
              const int64_t iw = (p % wo) * a_.stride_w - a_.pad_w + j * a_.dilation_w;
              const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < width;
              row[p - p0] =
                  inside ? static_cast<float>(EightBitAt(x, plane + ih * width + iw) - input_zp)
                         : 0.0f;
            }
          }
        }
      }
      IntRowsMap result(out + (n * out_channels + group * out_per_group) * positions + p0,
                        out_per_group, p1 - p0, Eigen::OuterStride<>(positions));
      ExactIntegerProduct(weights.middleRows(group * out_per_group, out_per_group), columns,
                          result, partial);
    };
    context_->ParallelRange(batch * groups * blocks, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) task(t);
    });
    return absl::OkStatus();
  }

 private:
  Conv2dAttrs a_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeConvInteger(const Node& node,
                                                        const Graph& /*graph*/,
                                                        CpuDevice& device) {
  absl::StatusOr<Conv2dAttrs> attrs = ParseConv2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ConvIntegerKernel>(*attrs, device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "conv_integer", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(CpuKernels(), "conv_integer", DType::kInt8, &MakeConvInteger);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
