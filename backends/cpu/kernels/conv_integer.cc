// conv_integer (ONNX ConvInteger) as a GEMM: the weights widened less their
// zero points (once, at kernel creation, when both are graph constants on
// the host, as a model's are; else per run), then for each task (image,
// group, block of output positions) the window's taps gathered (im2col)
// less the input's zero point, padding as 0, and multiplied exactly
// (exact_integer_product.h) into the block of the output.
//
// qlinear_conv is the same product with an epilogue: each task's block of
// int32 sums, still in cache, gets its channel's bias and is requantized
// into the 8-bit output (ops/linear_quantization.h: RequantizeElement).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/exact_integer_product.h"
#include "backends/cpu/kernels/integer_operands.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"
#include "ops/linear_quantization.h"

namespace switchyard {
namespace cpu {
namespace {

// Output positions per task: enough work per GEMM, bounded im2col memory.
constexpr int64_t kPositionsPerTask = 256;

// The weights [out_channels, taps] less their zero points (one per output
// channel or one for all).
FloatRows WidenWeights(const Tensor& w, const Tensor& w_zp) {
  const int64_t out_channels = w.shape().dim(0);
  FloatRows weights(out_channels, w.num_elements() / std::max<int64_t>(out_channels, 1));
  WidenLessZeroPoint(w, 0, out_channels, weights.cols(), w_zp, /*per_row=*/true, 0,
                     weights.data());
  return weights;
}

// Rows (channel, tap) x positions [p0, p1) of one image's group: input less
// its zero point, 0 in the padding.
template <typename Q>
void GatherColumns(const Q* image, int64_t in_per_group, int64_t h, int64_t width,
                   int64_t wo, const Conv2dAttrs& a, int64_t kh, int64_t kw, int64_t p0,
                   int64_t p1, float input_zp, float* columns) {
  const int64_t n = p1 - p0;
  for (int64_t c = 0; c < in_per_group; ++c) {
    const Q* plane = image + c * h * width;
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) {
        float* row = columns + ((c * kh + i) * kw + j) * n;
        int64_t oh = p0 / wo, ow = p0 % wo;
        for (int64_t p = 0; p < n; ++p) {
          const int64_t ih = oh * a.stride_h - a.pad_h + i * a.dilation_h;
          const int64_t iw = ow * a.stride_w - a.pad_w + j * a.dilation_w;
          row[p] = ih >= 0 && ih < h && iw >= 0 && iw < width
                       ? static_cast<float>(plane[ih * width + iw]) - input_zp
                       : 0.0f;
          if (++ow == wo) ow = 0, ++oh;
        }
      }
    }
  }
}

// qlinear_conv's operands past conv_integer's: (bias, multiplier, output
// zero point) and where the zero points are.
struct QLinearOperands {
  static constexpr int kBias = 2, kInputZeroPoint = 3, kWeightZeroPoint = 4, kMultiplier = 5,
                       kOutputZeroPoint = 6;
};

// Rows o0.. of a block of int32 sums plus bias[o], requantized into `out`
// (rows of `stride` elements).
template <typename Out>
void RequantizeBlock(const int32_t* sums, int64_t rows, int64_t cols, int64_t o0,
                     const int32_t* bias, const Tensor& multiplier, int32_t zero_point,
                     Out* out, int64_t stride) {
  const float* m = multiplier.data<float>();
  const bool per_channel = multiplier.num_elements() > 1;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = o0 + r;
    const int32_t b = bias[o];
    const float scale = m[per_channel ? o : 0];
    const int32_t* in = sums + r * cols;
    Out* row = out + r * stride;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) {
      const int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(in[c]) +
                                               static_cast<uint32_t>(b));
      row[c] = RequantizeElement<Out>(acc, scale, zero_point);
    }
  }
}

class ConvIntegerKernel : public Kernel {
 public:
  ConvIntegerKernel(Conv2dAttrs attrs, bool requantize, std::optional<FloatRows> weights,
                    std::shared_ptr<const CpuContext> context)
      : a_(attrs),
        requantize_(requantize),
        weights_(std::move(weights)),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    if (x.dtype() == DType::kUInt8) return RunTyped<uint8_t>(inputs, outputs);
    return RunTyped<int8_t>(inputs, outputs);
  }

 private:
  template <typename Q>
  absl::Status RunTyped(absl::Span<const Tensor* const> inputs,
                        absl::Span<Tensor* const> outputs) {
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    const Shape& xs = x.shape();
    const Shape& ws = inputs[1]->shape();
    const int64_t batch = xs.dim(0), channels = xs.dim(1), h = xs.dim(2), width = xs.dim(3);
    const int64_t out_channels = ws.dim(0), kh = ws.dim(2), kw = ws.dim(3);
    const int64_t wo = y.shape().dim(3);
    const int64_t positions = y.shape().dim(2) * wo;
    const int64_t groups = a_.groups;
    const int64_t in_per_group = channels / groups;
    const int64_t out_per_group = out_channels / groups;
    const int64_t taps = in_per_group * kh * kw;
    if (y.num_elements() == 0) return absl::OkStatus();

    const Tensor& x_zp = *inputs[requantize_ ? QLinearOperands::kInputZeroPoint : 2];
    const Tensor& w_zp = *inputs[requantize_ ? QLinearOperands::kWeightZeroPoint : 3];
    std::optional<FloatRows> per_run;
    if (!weights_.has_value()) per_run = WidenWeights(*inputs[1], w_zp);
    const FloatRows& weights = weights_.has_value() ? *weights_ : *per_run;
    const float input_zp = static_cast<float>(ZeroPointOf(x_zp, 0));
    const Q* in = x.data<Q>();

    const int64_t blocks = (positions + kPositionsPerTask - 1) / kPositionsPerTask;
    auto task = [&](int64_t t) {
      const int64_t block = t % blocks;
      const int64_t group = (t / blocks) % groups;
      const int64_t n = t / blocks / groups;
      const int64_t p0 = block * kPositionsPerTask;
      const int64_t p1 = std::min(positions, p0 + kPositionsPerTask);
      FloatRows columns(taps, p1 - p0), partial;
      GatherColumns(in + (n * channels + group * in_per_group) * h * width, in_per_group, h,
                    width, wo, a_, kh, kw, p0, p1, input_zp, columns.data());
      const int64_t o0 = group * out_per_group;
      const int64_t first = (n * out_channels + o0) * positions + p0;
      auto product = [&](int32_t* out, int64_t stride) {
        ExactIntegerProduct(weights.middleRows(o0, out_per_group), columns,
                            IntRowsMap(out, out_per_group, p1 - p0, Eigen::OuterStride<>(stride)),
                            partial);
      };
      if (!requantize_) {
        product(y.data<int32_t>() + first, positions);
        return;
      }
      std::vector<int32_t> sums(out_per_group * (p1 - p0));
      product(sums.data(), p1 - p0);
      const int32_t* bias = inputs[QLinearOperands::kBias]->data<int32_t>();
      const Tensor& multiplier = *inputs[QLinearOperands::kMultiplier];
      const int32_t output_zp = ZeroPointOf(*inputs[QLinearOperands::kOutputZeroPoint], 0);
      if (y.dtype() == DType::kUInt8) {
        RequantizeBlock(sums.data(), out_per_group, p1 - p0, o0, bias, multiplier, output_zp,
                        y.data<uint8_t>() + first, positions);
      } else {
        RequantizeBlock(sums.data(), out_per_group, p1 - p0, o0, bias, multiplier, output_zp,
                        y.data<int8_t>() + first, positions);
      }
    };
    context_->ParallelRange(batch * groups * blocks, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) task(t);
    });
    return absl::OkStatus();
  }

  Conv2dAttrs a_;
  bool requantize_;  // qlinear_conv
  std::optional<FloatRows> weights_;  // when the weights are constants
  std::shared_ptr<const CpuContext> context_;
};

// A graph constant on the host, or nullptr.
const Tensor* HostConstant(const Graph& graph, ValueId id) {
  const Value& v = graph.value(id);
  if (!v.constant.has_value() || !v.constant->defined()) return nullptr;
  return v.constant->device().type() == "cpu" ? &*v.constant : nullptr;
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeConvInteger(const Node& node, const Graph& graph,
                                                        CpuDevice& device) {
  absl::StatusOr<Conv2dAttrs> attrs = ParseConv2dAttrs(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const bool requantize = node.op == "qlinear_conv";
  std::optional<FloatRows> weights;
  const Tensor* w = HostConstant(graph, node.inputs[1]);
  const Tensor* w_zp =
      HostConstant(graph, node.inputs[requantize ? QLinearOperands::kWeightZeroPoint : 3]);
  if (w != nullptr && w_zp != nullptr) weights = WidenWeights(*w, *w_zp);
  return std::make_unique<ConvIntegerKernel>(*attrs, requantize, std::move(weights),
                                             device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "conv_integer", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(CpuKernels(), "conv_integer", DType::kInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(CpuKernels(), "qlinear_conv", DType::kUInt8, &MakeConvInteger);
SY_REGISTER_KERNEL(CpuKernels(), "qlinear_conv", DType::kInt8, &MakeConvInteger);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
