// reduce_sum, reduce_mean, reduce_max, reduce_min, as ONNX's Reduce* (and
// numpy): each output element combines every input element whose index
// agrees with it on the kept axes. Plain loops: every input element is
// mapped to its output element by dropping (or zeroing) its reduced
// coordinates. Sums in double, divided by the count for the mean (0 / 0 is
// NaN for an empty one), rounded once; max and min propagate NaN, and an
// empty one is -inf / +inf.

#include <cmath>
#include <limits>
#include <vector>

#include "backends/reference/kernels/kernels.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace reference {
namespace {

enum class Reduction { kSum, kMean, kMax, kMin };

class ReduceKernel : public RefKernel {
 public:
  ReduceKernel(const RefDevice& device, Reduction kind,
               std::vector<bool> reduced)
      : RefKernel(device, DType::kFloat32, 1, 1),
        kind_(kind),
        reduced_(std::move(reduced)) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& shape = inputs[0]->shape();
    const int rank = shape.rank();
    const int64_t out_count = output.shape().num_elements();
    double init = 0.0;
    if (kind_ == Reduction::kMax)
      init = -std::numeric_limits<double>::infinity();
    if (kind_ == Reduction::kMin)
      init = std::numeric_limits<double>::infinity();
    std::vector<double> acc(out_count, init);
    const float* x = inputs[0]->data<float>();
    std::vector<int64_t> index(rank, 0);
    const int64_t total = shape.num_elements();
    for (int64_t e = 0; e < total; ++e) {
      // Row-major index of the output element over the kept axes.
      int64_t o = 0;
      for (int d = 0; d < rank; ++d) {
        if (!reduced_[d]) o = o * shape.dim(d) + index[d];
      }
      const double v = x[e];
      switch (kind_) {
        case Reduction::kMax:
          if (v > acc[o] || std::isnan(v))
            acc[o] = std::isnan(acc[o]) ? acc[o] : v;
          break;
        case Reduction::kMin:
          if (v < acc[o] || std::isnan(v))
            acc[o] = std::isnan(acc[o]) ? acc[o] : v;
          break;
        default:
          acc[o] += v;
      }
      for (int d = rank - 1; d >= 0; --d) {  // the next input index
        if (++index[d] < shape.dim(d)) break;
        index[d] = 0;
      }
    }
    // Every output element reduces the same number of inputs (0 when a
    // reduced axis is empty).
    int64_t per_output = 1;
    for (int d = 0; d < rank; ++d) {
      if (reduced_[d]) per_output *= shape.dim(d);
    }
    float* y = output.data<float>();
    for (int64_t o = 0; o < out_count; ++o) {
      double v = acc[o];
      if (kind_ == Reduction::kMean) v /= static_cast<double>(per_output);
      y[o] = static_cast<float>(v);
    }
  }

 private:
  Reduction kind_;
  std::vector<bool> reduced_;
};

template <Reduction kKind>
absl::StatusOr<std::unique_ptr<Kernel>> MakeReduce(const Node& node,
                                                   const Graph& graph,
                                                   RefDevice& device) {
  absl::StatusOr<ReduceAttrs> attrs =
      ReduceAttrs::FromAttrMap(node.attrs, node.op);
  if (!attrs.ok()) return attrs.status();
  absl::StatusOr<std::vector<bool>> reduced =
      ReducedAxes(attrs->axes, *graph.value(node.inputs[0]).shape);
  if (!reduced.ok()) return reduced.status();
  return std::make_unique<ReduceKernel>(device, kKind, *std::move(reduced));
}

SY_REGISTER_KERNEL(RefKernels(), "reduce_sum", DType::kFloat32,
                   &MakeReduce<Reduction::kSum>);
SY_REGISTER_KERNEL(RefKernels(), "reduce_mean", DType::kFloat32,
                   &MakeReduce<Reduction::kMean>);
SY_REGISTER_KERNEL(RefKernels(), "reduce_max", DType::kFloat32,
                   &MakeReduce<Reduction::kMax>);
SY_REGISTER_KERNEL(RefKernels(), "reduce_min", DType::kFloat32,
                   &MakeReduce<Reduction::kMin>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
