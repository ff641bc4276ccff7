// Softmax along one dimension, shifted by the maximum for stability.

#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/tensor_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(int dim, std::shared_ptr<const CpuContext> context)
      : dim_(dim), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    // Empty: nothing to do, and outer * inner alone may be huge.
    if (shape.num_elements() == 0) return absl::OkStatus();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim_; ++d) outer *= shape.dim(d);
    for (int d = dim_ + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
    const int64_t n = shape.dim(dim_);
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    // Each (outer, inner) pair is one independent softmax over n strided values.
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t base = (r / inner) * n * inner + r % inner;
        float max_value = -INFINITY;
        for (int64_t i = 0; i < n; ++i) max_value = std::max(max_value, in[base + i * inner]);
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          const float e = std::exp(in[base + i * inner] - max_value);
          out[base + i * inner] = e;
          sum += e;
        }
        for (int64_t i = 0; i < n; ++i) out[base + i * inner] /= sum;
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

SY_REGISTER_KERNEL(CpuKernels(), "softmax", DType::kFloat32,
                   [](const Node& node, const Graph& graph, CpuDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     absl::StatusOr<SoftmaxAttrs> attrs =
                         SoftmaxAttrs::FromAttrMap(node.attrs);
                     if (!attrs.ok()) return attrs.status();
                     const int64_t dim = attrs->dim;
                     const int rank = graph.value(node.inputs[0]).shape->rank();
                     const int wrapped =
                         static_cast<int>(dim < 0 ? dim + rank : dim);
                     return std::make_unique<SoftmaxKernel>(wrapped,
                                                            device.context());
                   });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
