// Softmax along dimension `dim` (negative counts from the end), as
// torch.nn.functional.softmax:
//
//   out[..., k, ...] = exp(x[..., k, ...] - m) / sum_k' exp(x[..., k', ...] - m)
//
// with m the maximum along `dim` (the shift changes nothing mathematically
// and keeps exp from overflowing). Computed in double, rounded once.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backends/reference/kernels/kernels.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class SoftmaxKernel : public RefKernel {
 public:
  SoftmaxKernel(const RefDevice& device, int64_t dim)
      : RefKernel(device, DType::kFloat32, 1, 1), dim_attr_(dim) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& shape = inputs[0]->shape();
    const int rank = std::max(shape.rank(), 1);
    const int dim = static_cast<int>(dim_attr_ < 0 ? dim_attr_ + rank : dim_attr_);
    // The tensor as [outer, n, inner] with n along `dim` (a rank-0 input is
    // one element: n = 1).
    int64_t outer = 1, n = 1, inner = 1;
    for (int d = 0; d < shape.rank(); ++d) {
      if (d < dim) outer *= shape.dim(d);
      if (d == dim) n = shape.dim(d);
      if (d > dim) inner *= shape.dim(d);
    }
    const float* x = inputs[0]->data<float>();
    float* y = output.data<float>();
    std::vector<double> e(n);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const int64_t base = o * n * inner + in;
        double max_value = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < n; ++k) {
          max_value = std::max<double>(max_value, x[base + k * inner]);
        }
        double sum = 0.0;
        for (int64_t k = 0; k < n; ++k) {
          e[k] = std::exp(x[base + k * inner] - max_value);
          sum += e[k];
        }
        for (int64_t k = 0; k < n; ++k) {
          y[base + k * inner] = static_cast<float>(e[k] / sum);
        }
      }
    }
  }

 private:
  int64_t dim_attr_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmax(const Node& node,
                                                    const Graph&,
                                                    RefDevice& device) {
  absl::StatusOr<SoftmaxAttrs> attrs = SoftmaxAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<SoftmaxKernel>(device, attrs->dim);
}

SY_REGISTER_KERNEL(RefKernels(), "softmax", DType::kFloat32, &MakeSoftmax);

}  // namespace
}  // namespace reference
}  // namespace switchyard
