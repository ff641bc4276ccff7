// reduce_mean, reduce_sum, reduce_max and reduce_min: the reduction as a few
// passes over [outer, n, inner] views (ops/reduce_geometry.h), each pass
// into a scratch buffer or, the last, the output. A pass with inner == 1
// reduces contiguous rows (Eigen's vectorized redux); otherwise it combines
// whole rows of `inner` values, which vectorizes along inner. Both are split
// over the threads when large. max and min propagate NaN, as numpy and
// ONNX do; an empty reduction gives 0 (sum), NaN (mean), -inf (max) or +inf
// (min).

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

enum class Reduction { kSum, kMean, kMax, kMin };

using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;

// Values of a row of `inner` columns processed by one task.
constexpr int64_t kColumnBlock = 1024;

class ReduceKernel : public Kernel {
 public:
  ReduceKernel(Reduction kind, std::vector<ReducePass> passes, int64_t count,
               std::shared_ptr<const CpuContext> context)
      : kind_(kind),
        passes_(std::move(passes)),
        count_(count),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    const int64_t out_elements = outputs[0]->shape().num_elements();
    if (passes_.empty()) {  // nothing to reduce: every count is 1
      if (out_elements > 0) {
        std::memcpy(dst, src, out_elements * sizeof(float));
      }
      return absl::OkStatus();
    }
    std::vector<float> scratch[2];
    for (size_t i = 0; i < passes_.size(); ++i) {
      const ReducePass& p = passes_[i];
      float* to = dst;
      if (i + 1 < passes_.size()) {
        scratch[i % 2].resize(p.outer * p.inner);
        to = scratch[i % 2].data();
      }
      RunPass(p, src, to);
      src = to;
    }
    if (kind_ == Reduction::kMean) {
      const float count = static_cast<float>(count_);
      ForEachRange(*context_, out_elements, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] /= count;
      });
    }
    return absl::OkStatus();
  }

 private:
  float Identity() const {
    switch (kind_) {
      case Reduction::kMax:
        return -std::numeric_limits<float>::infinity();
      case Reduction::kMin:
        return std::numeric_limits<float>::infinity();
      default:
        return 0.0f;
    }
  }

  // Combines one value into an accumulator; NaN sticks in max and min.
  float Combine(float acc, float v) const {
    switch (kind_) {
      case Reduction::kMax:
        return (v > acc || v != v) ? v : acc;
      case Reduction::kMin:
        return (v < acc || v != v) ? v : acc;
      default:
        return acc + v;
    }
  }

  float ReduceRow(const float* row, int64_t n) const {
    if (n == 0) return Identity();
    Eigen::Map<const Vector> v(row, n);
    switch (kind_) {
      case Reduction::kMax:
        return v.maxCoeff<Eigen::PropagateNaN>();
      case Reduction::kMin:
        return v.minCoeff<Eigen::PropagateNaN>();
      default:
        return v.sum();
    }
  }

  void RunPass(const ReducePass& p, const float* src, float* dst) const {
    const int64_t work = p.outer * p.n * p.inner;
    if (p.inner == 1) {
      auto rows = [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
          dst[o] = ReduceRow(src + o * p.n, p.n);
      };
      if (work < kMinParallelElements) {
        rows(0, p.outer);
      } else {
        context_->ParallelRange(p.outer, rows);
      }
      return;
    }
    // Tasks: (outer index, block of inner columns).
    const int64_t blocks = (p.inner + kColumnBlock - 1) / kColumnBlock;
    auto tasks = [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / blocks;
        const int64_t j0 = (t % blocks) * kColumnBlock;
        const int64_t j1 = std::min(p.inner, j0 + kColumnBlock);
        float* acc = dst + o * p.inner;
        std::fill(acc + j0, acc + j1, Identity());
        const float* base = src + o * p.n * p.inner;
        for (int64_t i = 0; i < p.n; ++i) {
          const float* row = base + i * p.inner;
          for (int64_t j = j0; j < j1; ++j) acc[j] = Combine(acc[j], row[j]);
        }
      }
    };
    if (work < kMinParallelElements) {
      tasks(0, p.outer * blocks);
    } else {
      context_->ParallelRange(p.outer * blocks, tasks);
    }
  }

  Reduction kind_;
  std::vector<ReducePass> passes_;
  int64_t count_;  // elements per output element, for the mean
  std::shared_ptr<const CpuContext> context_;
};

template <Reduction kKind>
absl::StatusOr<std::unique_ptr<Kernel>> MakeReduce(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  absl::StatusOr<ReduceAttrs> attrs =
      ReduceAttrs::FromAttrMap(node.attrs, node.op);
  if (!attrs.ok()) return attrs.status();
  const Shape& in = *graph.value(node.inputs[0]).shape;
  absl::StatusOr<std::vector<bool>> reduced = ReducedAxes(attrs->axes, in);
  if (!reduced.ok()) return reduced.status();
  return std::make_unique<ReduceKernel>(kKind, ReducePasses(in, *reduced),
                                        ReducedCount(in, *reduced),
                                        device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "reduce_sum", DType::kFloat32,
                   &MakeReduce<Reduction::kSum>);
SY_REGISTER_KERNEL(CpuKernels(), "reduce_mean", DType::kFloat32,
                   &MakeReduce<Reduction::kMean>);
SY_REGISTER_KERNEL(CpuKernels(), "reduce_max", DType::kFloat32,
                   &MakeReduce<Reduction::kMax>);
SY_REGISTER_KERNEL(CpuKernels(), "reduce_min", DType::kFloat32,
                   &MakeReduce<Reduction::kMin>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
