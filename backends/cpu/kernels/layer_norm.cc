// LayerNorm over the trailing `n` values of each of `rows` rows, in parallel
// over rows. Per row, vectorized with Eigen: the mean, then the mean of
// squared deviations (two passes: no cancellation of large means), then
// y = (x - mean) * rsqrt(var + epsilon) * scale + bias.

#include <cmath>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;

class LayerNormKernel : public Kernel {
 public:
  LayerNormKernel(int64_t rows, int64_t n, double epsilon, bool has_bias,
                  std::shared_ptr<const CpuContext> context)
      : rows_(rows),
        n_(n),
        epsilon_(epsilon),
        has_bias_(has_bias),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (rows_ * n_ == 0) return absl::OkStatus();
    const float* x = inputs[0]->data<float>();
    Eigen::Map<const Vector> scale(inputs[1]->data<float>(), n_);
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    const float inv_n = 1.0f / static_cast<float>(n_);
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        Eigen::Map<const Vector> in(x + r * n_, n_);
        Eigen::Map<Vector> out(y + r * n_, n_);
        const float mean = in.sum() * inv_n;
        out = in - mean;  // the deviations, reused below
        const float var = out.square().sum() * inv_n;
        const float inv_std = static_cast<float>(
            1.0 / std::sqrt(static_cast<double>(var) + epsilon_));
        if (bias != nullptr) {
          out = out * inv_std * scale + Eigen::Map<const Vector>(bias, n_);
        } else {
          out = out * inv_std * scale;
        }
      }
    };
    if (rows_ * n_ < kMinParallelElements) {
      rows(0, rows_);
    } else {
      context_->ParallelRange(rows_, rows);
    }
    return absl::OkStatus();
  }

 private:
  int64_t rows_, n_;
  double epsilon_;
  bool has_bias_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLayerNorm(const Node& node,
                                                      const Graph& graph,
                                                      CpuDevice& device) {
  absl::StatusOr<LayerNormAttrs> attrs =
      LayerNormAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& scale = *graph.value(node.inputs[1]).shape;
  const int64_t n = scale.num_elements();
  const int64_t rows = n == 0 ? 0 : in.num_elements() / n;
  return std::make_unique<LayerNormKernel>(
      rows, n, attrs->epsilon, node.inputs.size() > 2, device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "layer_norm", DType::kFloat32, &MakeLayerNorm);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
