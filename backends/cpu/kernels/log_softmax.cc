// LogSoftmax along one dimension: x - max - log(sum(exp(x - max))), so
// large values do not overflow and tiny probabilities keep their log
// (log(softmax) would give -inf). The input is viewed as [outer, n, inner];
// with inner == 1 (the last dimension, the common case) each row is
// contiguous and vectorized with Eigen.

#include <algorithm>
#include <cmath>
#include <limits>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/tensor_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;

class LogSoftmaxKernel : public Kernel {
 public:
  LogSoftmaxKernel(int dim, std::shared_ptr<const CpuContext> context)
      : dim_(dim), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    if (shape.num_elements() == 0) return absl::OkStatus();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim_; ++d) outer *= shape.dim(d);
    for (int d = dim_ + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
    const int64_t n = shape.dim(dim_);
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        if (inner == 1) {
          Eigen::Map<const Vector> x(in + r * n, n);
          Eigen::Map<Vector> y(out + r * n, n);
          const float max_value = x.maxCoeff<Eigen::PropagateNaN>();
          y = x - max_value;
          const float log_sum = std::log((y.exp()).sum());
          y -= log_sum;
          continue;
        }
        const int64_t base = (r / inner) * n * inner + r % inner;
        float max_value = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < n; ++i) {
          const float v = in[base + i * inner];
          max_value = (v > max_value || v != v) ? v : max_value;
        }
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          sum += std::exp(in[base + i * inner] - max_value);
        }
        const float shift = max_value + std::log(sum);
        for (int64_t i = 0; i < n; ++i) {
          out[base + i * inner] = in[base + i * inner] - shift;
        }
      }
    };
    if (outer * inner * n < kMinParallelElements) {
      rows(0, outer * inner);
    } else {
      context_->ParallelRange(outer * inner, rows);
    }
    return absl::OkStatus();
  }

 private:
  int dim_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLogSoftmax(const Node& node,
                                                       const Graph& graph,
                                                       CpuDevice& device) {
  absl::StatusOr<SoftmaxAttrs> attrs = SoftmaxAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const int rank = graph.value(node.inputs[0]).shape->rank();
  const int dim =
      static_cast<int>(attrs->dim < 0 ? attrs->dim + rank : attrs->dim);
  return std::make_unique<LogSoftmaxKernel>(dim, device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "log_softmax", DType::kFloat32,
                   &MakeLogSoftmax);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
