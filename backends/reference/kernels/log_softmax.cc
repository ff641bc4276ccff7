// LogSoftmax along dimension `dim` (negative counts from the end), as
// torch.nn.functional.log_softmax and ONNX LogSoftmax (opset 13):
//
//   out[..., k, ...] = x[..., k, ...] - m - log(sum_k' exp(x[..., k', ...] -
//   m))
//
// with m the maximum along `dim` (the shift keeps exp from overflowing and
// the log from meeting an underflowed 0). In double, rounded once.

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/reference/kernels/kernels.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class LogSoftmaxKernel : public RefKernel {
 public:
  LogSoftmaxKernel(const RefDevice& device, int64_t dim)
      : RefKernel(device, DType::kFloat32, 1, 1), dim_attr_(dim) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& shape = inputs[0]->shape();
    const int rank = shape.rank();
    const int dim =
        static_cast<int>(dim_attr_ < 0 ? dim_attr_ + rank : dim_attr_);
    int64_t outer = 1, n = 1, inner = 1;
    for (int d = 0; d < rank; ++d) {
      if (d < dim) outer *= shape.dim(d);
      if (d == dim) n = shape.dim(d);
      if (d > dim) inner *= shape.dim(d);
    }
    const float* x = inputs[0]->data<float>();
    float* y = output.data<float>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const int64_t base = o * n * inner + in;
        double max_value = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < n; ++k) {
          const double v = x[base + k * inner];
          if (v > max_value || std::isnan(v)) max_value = v;
          if (std::isnan(max_value)) break;
        }
        double sum = 0.0;
        for (int64_t k = 0; k < n; ++k)
          sum += std::exp(x[base + k * inner] - max_value);
        const double shift = max_value + std::log(sum);
        for (int64_t k = 0; k < n; ++k) {
          y[base + k * inner] = static_cast<float>(x[base + k * inner] - shift);
        }
      }
    }
  }

 private:
  int64_t dim_attr_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeLogSoftmax(const Node& node,
                                                       const Graph&,
                                                       RefDevice& device) {
  absl::StatusOr<SoftmaxAttrs> attrs = SoftmaxAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<LogSoftmaxKernel>(device, attrs->dim);
}

SY_REGISTER_KERNEL(RefKernels(), "log_softmax", DType::kFloat32,
                   &MakeLogSoftmax);

}  // namespace
}  // namespace reference
}  // namespace switchyard
