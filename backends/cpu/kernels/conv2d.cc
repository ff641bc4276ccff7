// The cpu's float32 conv2d: the algorithm chosen per node at kernel
// creation (conv2d_algorithm.h: Winograd for 3x3 stride-1 convolutions,
// winograd.h), else the depthwise or the direct path below.
//
// Depthwise (one input channel per group: MobileNet's and EfficientNet's
// 3x3 and 5x5 layers), under the auto choice: each output plane is the sum
// of kh * kw shifted rows of its input plane times one weight each,
// accumulated a whole output row at a time as vectors, with no im2col
// (whose 9-row column matrix and 1-row GEMM per group cost more than the
// arithmetic). cpu.conv_algorithm=direct still runs these through im2col.
//
// Direct: im2col + GEMM (Eigen), NCHW. The weights are copied once, at
// kernel creation, when they are a graph constant (row-major O x K per
// group: the GEMM's left operand as it reads it).
//
// For image n and group g the output block is W_g (Og x K) times the column
// matrix (K x P), K = Cg*kh*kw and P = Ho*Wo: already NCHW, no transpose.
// Work is split into column tiles; each thread unfolds a tile into its own
// scratch and multiplies it, so im2col and GEMM both run in parallel and the
// scratch stays small (K x tile floats per thread). The bias, and the ReLU
// of a fused conv2d+relu partition, are applied to each tile right after
// its GEMM, while it is in cache (epilogue.h).

#include "backends/cpu/kernels/conv2d.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/winograd.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

// Column tiles: the im2col scratch of one tile (K x columns floats) stays
// within about kScratchBudgetBytes (cache-sized), but a tile has at least
// kMinTileColumns columns so the GEMM stays efficient (and the weights are
// not re-read for too few columns) and at most kMaxTileColumns.
constexpr int64_t kScratchBudgetBytes = 2 << 20;
constexpr int64_t kMinTileColumns = 128;
constexpr int64_t kMaxTileColumns = 2048;

using Geometry = Conv2dGeometry;

class Conv2dKernel : public Kernel {
 public:
  Conv2dKernel(Geometry geo, Tensor weight, bool has_bias,
               Activation activation, std::shared_ptr<const CpuContext> context,
               std::string fallback_reason)
      : attrs_(geo.attrs),
        geo_(geo),
        has_bias_(has_bias),
        activation_(activation),
        context_(std::move(context)),
        fallback_reason_(std::move(fallback_reason)),
        weight_(std::move(weight)) {
    pointwise_ = geo_.kh == 1 && geo_.kw == 1 && attrs_.stride_h == 1 &&
                 attrs_.stride_w == 1 && attrs_.pad_h == 0 && attrs_.pad_w == 0;
    const int64_t items = geo_.n * geo_.groups;
    const int64_t max_columns = std::clamp<int64_t>(
        kScratchBudgetBytes / (4 * std::max<int64_t>(geo_.k, 1)),
        kMinTileColumns, kMaxTileColumns);
    tiles_per_item_ = (geo_.p + max_columns - 1) / max_columns;
    // Few images and groups: cut each into more tiles so every thread works.
    const int64_t threads = context_->threads();
    if (items * tiles_per_item_ < 4 * threads) {
      tiles_per_item_ = (tiles_per_item_ + threads - 1) / threads * threads;
    }
    tiles_per_item_ = std::min(tiles_per_item_, geo_.p);
    tile_columns_ = (geo_.p + tiles_per_item_ - 1) / tiles_per_item_;
    if (!pointwise_) {
      scratch_.resize(threads);
      for (auto& s : scratch_) s.resize(geo_.k * tile_columns_);
    }
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* input = inputs[0]->data<float>();
    const float* weight =
        weight_.defined() ? weight_.data<float>() : inputs[1]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* output = outputs[0]->data<float>();
    const int64_t tasks = geo_.n * geo_.groups * tiles_per_item_;
    std::atomic<int64_t> next{0};
    context_->ParallelFor(context_->threads(), [&](int64_t thread) {
      for (int64_t t = next++; t < tasks; t = next++) {
        RunTile(t, thread, input, weight, bias, output);
      }
    });
    return absl::OkStatus();
  }

  std::string Describe() const override {
    std::string what =
        pointwise_ ? "direct: 1x1 GEMM on the input (no im2col)"
                   : absl::StrCat("direct: im2col tiles of <= ", tile_columns_,
                                  " columns + GEMM (K = ", geo_.k, ")");
    if (weight_.defined()) absl::StrAppend(&what, "; weights read in place (a constant)");
    if (!fallback_reason_.empty()) {
      absl::StrAppend(&what, " (winograd does not apply: ", fallback_reason_, ")");
    }
    return what;
  }

 private:
  void RunTile(int64_t task, int64_t thread, const float* input,
               const float* weight, const float* bias, float* output) {
    const int64_t tile = task % tiles_per_item_;
    const int64_t item = task / tiles_per_item_;
    const int64_t g = item % geo_.groups;
    const int64_t n = item / geo_.groups;
    const int64_t p0 = tile * tile_columns_;
    const int64_t cols = std::min(geo_.p, p0 + tile_columns_) - p0;
    if (cols <= 0) return;

    const float* image = input + (n * geo_.c + g * geo_.cg) * geo_.h * geo_.w;
    Eigen::Map<const RowMatrix> w(weight + g * geo_.og * geo_.k, geo_.og, geo_.k);
    StridedMap out(output + (n * geo_.o + g * geo_.og) * geo_.p + p0, geo_.og,
                   cols, Eigen::OuterStride<>(geo_.p));
    if (pointwise_) {
      // A 1x1 stride-1 convolution's column matrix is the input itself.
      ConstStridedMap col(image + p0, geo_.k, cols, Eigen::OuterStride<>(geo_.p));
      out.noalias() = w * col;
    } else {
      float* col = scratch_[thread].data();
      Im2Col(image, p0, cols, col);
      out.noalias() = w * Eigen::Map<const RowMatrix>(col, geo_.k, cols);
    }
    if (bias != nullptr || !activation_.none()) {
      for (int64_t r = 0; r < geo_.og; ++r) {
        FinishRow(&out(r, 0), cols,
                  bias != nullptr ? bias + g * geo_.og + r : nullptr,
                  activation_);
      }
    }
  }

  // Unfolds output columns [p0, p0 + cols) of one image and group into
  // `col` (K rows of `cols` values), zero where the window is in padding.
  void Im2Col(const float* image, int64_t p0, int64_t cols, float* col) const {
    for (int64_t c = 0; c < geo_.cg; ++c) {
      const float* plane = image + c * geo_.h * geo_.w;
      for (int64_t i = 0; i < geo_.kh; ++i) {
        for (int64_t j = 0; j < geo_.kw; ++j) {
          float* row = col + ((c * geo_.kh + i) * geo_.kw + j) * cols;
          int64_t oh = p0 / geo_.wo;
          int64_t ow = p0 % geo_.wo;
          for (int64_t q = 0; q < cols;) {
            const int64_t ih = oh * attrs_.stride_h - attrs_.pad_h + i * attrs_.dilation_h;
            // The rest of this output row, at most what the tile still needs.
            const int64_t run = std::min(geo_.wo - ow, cols - q);
            if (ih < 0 || ih >= geo_.h) {
              std::fill(row + q, row + q + run, 0.0f);
            } else {
              const float* src = plane + ih * geo_.w;
              const int64_t iw0 = ow * attrs_.stride_w - attrs_.pad_w + j * attrs_.dilation_w;
              for (int64_t r = 0; r < run; ++r) {
                const int64_t iw = iw0 + r * attrs_.stride_w;
                row[q + r] = (iw >= 0 && iw < geo_.w) ? src[iw] : 0.0f;
              }
            }
            q += run;
            ow = 0;
            ++oh;
          }
        }
      }
    }
  }

  Conv2dAttrs attrs_;
  Geometry geo_;
  bool has_bias_;
  Activation activation_;
  std::shared_ptr<const CpuContext> context_;
  std::string fallback_reason_;  // why a requested winograd runs direct
  // The constant weight, shared with the graph (GEMM reads it as it is);
  // undefined: the run's operand.
  Tensor weight_;
  bool pointwise_ = false;
  int64_t tiles_per_item_ = 1;
  int64_t tile_columns_ = 1;
  std::vector<std::vector<float>> scratch_;  // one per thread
};

// Depthwise: groups == input channels (og output channels per group, the
// depth multiplier). One task per output plane (image, output channel).
class DepthwiseConv2dKernel : public Kernel {
 public:
  DepthwiseConv2dKernel(Geometry geo, Tensor weight, bool has_bias, Activation activation,
                        std::shared_ptr<const CpuContext> context)
      : attrs_(geo.attrs),
        geo_(geo),
        has_bias_(has_bias),
        activation_(activation),
        context_(std::move(context)),
        weight_(std::move(weight)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* input = inputs[0]->data<float>();
    const float* weight =
        weight_.defined() ? weight_.data<float>() : inputs[1]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* output = outputs[0]->data<float>();
    context_->ParallelRange(geo_.n * geo_.o, [&](int64_t begin, int64_t end) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t n = plane / geo_.o, o = plane % geo_.o;
        const int64_t c = o / geo_.og;  // the group's one input channel
        RunPlane(input + (n * geo_.c + c) * geo_.h * geo_.w,
                 weight + o * geo_.kh * geo_.kw, output + plane * geo_.p);
        FinishRow(output + plane * geo_.p, geo_.p, bias != nullptr ? bias + o : nullptr,
                  activation_);
      }
    });
    return absl::OkStatus();
  }

  std::string Describe() const override {
    std::string what = absl::StrCat("depthwise: ", geo_.kh, "x", geo_.kw,
                                    " taps accumulated per output row (no im2col)");
    if (weight_.defined()) absl::StrAppend(&what, "; weights read in place (a constant)");
    return what;
  }

 private:
  // out (ho x wo) = sum over taps (i, j) of w[i, j] times the input at
  // (oh * sh - ph + i * dh, ow * sw - pw + j * dw); padding reads 0, so
  // each tap only touches the output columns whose input column exists.
  void RunPlane(const float* in, const float* w, float* out) const {
    const int64_t sh = attrs_.stride_h, sw = attrs_.stride_w;
    std::fill(out, out + geo_.p, 0.0f);
    for (int64_t oh = 0; oh < geo_.ho; ++oh) {
      Eigen::Map<Eigen::ArrayXf> row(out + oh * geo_.wo, geo_.wo);
      for (int64_t i = 0; i < geo_.kh; ++i) {
        const int64_t ih = oh * sh - attrs_.pad_h + i * attrs_.dilation_h;
        if (ih < 0 || ih >= geo_.h) continue;
        const float* src = in + ih * geo_.w;
        for (int64_t j = 0; j < geo_.kw; ++j) {
          // Input column of output column ow: ow * sw + shift.
          const int64_t shift = j * attrs_.dilation_w - attrs_.pad_w;
          const int64_t first = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
          const int64_t last = std::min(geo_.wo - 1, (geo_.w - 1 - shift) / sw);
          if (geo_.w - 1 - shift < 0 || last < first) continue;
          const int64_t count = last - first + 1;
          const float tap = w[i * geo_.kw + j];
          if (sw == 1) {
            row.segment(first, count) +=
                tap * Eigen::Map<const Eigen::ArrayXf>(src + first + shift, count);
          } else {
            row.segment(first, count) +=
                tap * Eigen::Map<const Eigen::ArrayXf, 0, Eigen::InnerStride<>>(
                          src + first * sw + shift, count, Eigen::InnerStride<>(sw));
          }
        }
      }
    }
  }

  Conv2dAttrs attrs_;
  Geometry geo_;
  bool has_bias_;
  Activation activation_;
  std::shared_ptr<const CpuContext> context_;
  Tensor weight_;  // the constant weight, or undefined: the run's operand
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2dKernel(
    const Node& node, const Graph& graph,
    std::shared_ptr<const CpuContext> context, Activation activation,
    ConvAlgorithm requested, PreparedWeights& prepared) {
  absl::StatusOr<Geometry> geo = Geometry::FromNode(node, graph);
  if (!geo.ok()) return geo.status();
  // Weights that are a graph constant on the host are read (direct) or
  // transformed (Winograd, once per model: PreparedWeights) now.
  const Value& weight_value = graph.value(node.inputs[1]);
  Tensor weight;
  if (weight_value.constant.has_value() && weight_value.constant->defined() &&
      weight_value.constant->device().type() == "cpu" &&
      weight_value.constant->num_elements() == geo->o * geo->k) {
    weight = *weight_value.constant;
  }
  const bool has_bias = node.inputs.size() > 2;
  switch (ChooseConvAlgorithm(*geo, requested)) {
    case ConvAlgorithm::kWinograd2:
      return MakeWinogradConv2dKernel(*geo, 2, weight, has_bias, activation,
                                      std::move(context), prepared);
    case ConvAlgorithm::kWinograd4:
      return MakeWinogradConv2dKernel(*geo, 4, weight, has_bias, activation,
                                      std::move(context), prepared);
    default:
      break;
  }
  if (requested == ConvAlgorithm::kAuto && geo->cg == 1 && geo->groups > 1 && geo->p > 0) {
    return std::make_unique<DepthwiseConv2dKernel>(*geo, weight, has_bias, activation,
                                                   std::move(context));
  }
  const bool forced_winograd = requested == ConvAlgorithm::kWinograd2 ||
                               requested == ConvAlgorithm::kWinograd4;
  return std::make_unique<Conv2dKernel>(
      *geo, weight, has_bias, activation, std::move(context),
      forced_winograd ? WhyNotWinograd(*geo) : "");
}

SY_REGISTER_KERNEL(CpuKernels(), "conv2d", DType::kFloat32,
                   [](const Node& node, const Graph& graph, CpuDevice& device) {
                     return MakeConv2dKernel(node, graph, device.context(),
                                             Activation::None(),
                                             device.conv_algorithm(),
                                             device.prepared_weights());
                   });

}  // namespace cpu
}  // namespace switchyard
