// BatchNorm at inference over channel dim 1 of [N, C, ...]:
//   y = (x - mean) / sqrt(var + eps) * weight + bias  =  x * scale[c] + shift[c]
// with scale = weight / sqrt(var + eps) and shift = bias - mean * scale,
// computed in double once at kernel creation when the four parameters are
// constants (a model's running statistics), else at every run.

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/norm_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

// Operand order of the op: input, weight, bias, running_mean, running_var.
constexpr int kWeight = 1, kBias = 2, kMean = 3, kVar = 4;

struct ScaleShift {
  std::vector<float> scale, shift;
};

ScaleShift Fold(const float* weight, const float* bias, const float* mean,
                const float* var, int64_t channels, double epsilon) {
  ScaleShift s{std::vector<float>(channels), std::vector<float>(channels)};
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = weight[c] / std::sqrt(double{var[c]} + epsilon);
    s.scale[c] = static_cast<float>(scale);
    s.shift[c] = static_cast<float>(bias[c] - mean[c] * scale);
  }
  return s;
}

class BatchNormKernel : public Kernel {
 public:
  // `folded`: the precomputed scale and shift, or null to fold every run.
  BatchNormKernel(int64_t channels, double epsilon,
                  std::unique_ptr<ScaleShift> folded,
                  std::shared_ptr<const CpuContext> context)
      : channels_(channels),
        epsilon_(epsilon),
        folded_(std::move(folded)),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    const int64_t total = shape.num_elements();
    if (total == 0) return absl::OkStatus();
    ScaleShift per_run;
    const ScaleShift* s = folded_.get();
    if (s == nullptr) {
      per_run = Fold(inputs[kWeight]->data<float>(), inputs[kBias]->data<float>(),
                     inputs[kMean]->data<float>(), inputs[kVar]->data<float>(),
                     channels_, epsilon_);
      s = &per_run;
    }
    const int64_t inner = total / (shape.dim(0) * channels_);  // H * W * ...
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    // One plane is `inner` values of one (sample, channel).
    auto planes = [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t c = p % channels_;
        Eigen::Map<Eigen::ArrayXf>(y + p * inner, inner) =
            Eigen::Map<const Eigen::ArrayXf>(x + p * inner, inner) * s->scale[c] +
            s->shift[c];
      }
    };
    const int64_t plane_count = total / inner;
    if (total < kMinParallelElements) {
      planes(0, plane_count);
    } else {
      context_->ParallelRange(plane_count, planes);
    }
    return absl::OkStatus();
  }

 private:
  int64_t channels_;
  double epsilon_;
  std::unique_ptr<ScaleShift> folded_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeBatchNormKernel(
    const Node& node, const Graph& graph, CpuDevice& device) {
  absl::StatusOr<BatchNormAttrs> attrs = BatchNormAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const double epsilon = attrs->epsilon;
  const int64_t channels = graph.value(node.inputs[0]).shape->dim(1);
  std::unique_ptr<ScaleShift> folded;
  std::vector<std::vector<float>> params;
  for (int i : {kWeight, kBias, kMean, kVar}) {
    const Value& v = graph.value(node.inputs[i]);
    if (!v.constant.has_value()) break;
    absl::StatusOr<std::vector<float>> values = v.constant->ToHost<float>();
    if (!values.ok()) return values.status();
    params.push_back(*std::move(values));
  }
  if (params.size() == 4) {
    folded = std::make_unique<ScaleShift>(
        Fold(params[0].data(), params[1].data(), params[2].data(),
             params[3].data(), channels, epsilon));
  }
  return std::make_unique<BatchNormKernel>(channels, epsilon, std::move(folded),
                                           device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "batch_norm", DType::kFloat32,
                   &MakeBatchNormKernel);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
