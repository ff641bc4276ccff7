// reduce_mean, reduce_sum, reduce_max, reduce_min and reduce_prod: the
// reduction as a few
// passes over [outer, n, inner] views (ops/reduce_geometry.h), each pass
// into a scratch buffer or, the last, the output. A pass with inner == 1
// reduces contiguous rows (Eigen's vectorized redux); otherwise it combines
// whole rows of `inner` values, which vectorizes along inner. Both are split
// over the threads when large. max and min propagate NaN, as numpy and
// ONNX do; an empty reduction gives 0 (sum), NaN (mean), -inf (max), +inf
// (min) or 1 (prod). float32 for all; max and min also in int64 and int32,
// prod in int64 (shape arithmetic: detectors reduce image sizes), where an
// empty max is the type's lowest value and min its highest, and products
// wrap.

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/kernel_lists.h"
#include "ops/reduce_geometry.h"
#include "ops/reduction.h"
#include "ops/wrapping_arithmetic.h"

namespace switchyard {
namespace cpu {
namespace {

// Values of a row of `inner` columns processed by one task.
constexpr int64_t kColumnBlock = 1024;

template <typename T>
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
    const T* src = inputs[0]->data<T>();
    T* dst = outputs[0]->data<T>();
    const int64_t out_elements = outputs[0]->shape().num_elements();
    if (passes_.empty()) {  // nothing to reduce: every count is 1
      if (out_elements > 0) {
        std::memcpy(dst, src, out_elements * sizeof(T));
      }
      return absl::OkStatus();
    }
    std::vector<T> scratch[2];
    for (size_t i = 0; i < passes_.size(); ++i) {
      const ReducePass& p = passes_[i];
      T* to = dst;
      if (i + 1 < passes_.size()) {
        scratch[i % 2].resize(p.outer * p.inner);
        to = scratch[i % 2].data();
      }
      RunPass(p, src, to);
      src = to;
    }
    if (kind_ == Reduction::kMean) {  // float32 only
      const T count = static_cast<T>(count_);
      ForEachRange(*context_, out_elements, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] /= count;
      });
    }
    return absl::OkStatus();
  }

 private:
  T Identity() const { return ReductionIdentity<T>(kind_); }

  static bool IsNaN(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      return v != v;
    } else {
      return false;
    }
  }

  // Combines one value into an accumulator; NaN sticks in max and min.
  T Combine(T acc, T v) const {
    switch (kind_) {
      case Reduction::kMax:
        return (v > acc || IsNaN(v)) ? v : acc;
      case Reduction::kMin:
        return (v < acc || IsNaN(v)) ? v : acc;
      case Reduction::kProd:
        if constexpr (std::is_integral_v<T>) {
          return wrapping::Mul(acc, v);
        } else {
          return acc * v;
        }
      default:
        return acc + v;
    }
  }

  T ReduceRow(const T* row, int64_t n) const {
    if (n == 0) return Identity();
    if constexpr (std::is_floating_point_v<T>) {
      Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> v(row, n);
      switch (kind_) {
        case Reduction::kMax:
          return v.template maxCoeff<Eigen::PropagateNaN>();
        case Reduction::kMin:
          return v.template minCoeff<Eigen::PropagateNaN>();
        case Reduction::kProd:
          return v.prod();
        default:
          return v.sum();
      }
    }
    T acc = row[0];
    for (int64_t i = 1; i < n; ++i) acc = Combine(acc, row[i]);
    return acc;
  }

  void RunPass(const ReducePass& p, const T* src, T* dst) const {
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
        T* acc = dst + o * p.inner;
        std::fill(acc + j0, acc + j1, Identity());
        const T* base = src + o * p.n * p.inner;
        for (int64_t i = 0; i < p.n; ++i) {
          const T* row = base + i * p.inner;
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

template <Reduction kKind, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeReduce(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  absl::StatusOr<std::vector<bool>> reduced = ReducedAxesOf(node, graph);
  if (!reduced.ok()) return reduced.status();
  const Shape& in = *graph.value(node.inputs[0]).shape;
  return std::make_unique<ReduceKernel<T>>(kKind, ReducePasses(in, *reduced),
                                        ReducedCount(in, *reduced),
                                        device.context());
}

// The (op, dtype) list is ops/kernel_lists.h's, shared with the reference
// backend.
#define SY_REGISTER_REDUCE(op, kind, T) \
  SY_REGISTER_KERNEL(CpuKernels(), op, DTypeOf<T>(), (&MakeReduce<Reduction::kind, T>));
SY_REDUCE_KERNELS(SY_REGISTER_REDUCE)
#undef SY_REGISTER_REDUCE

}  // namespace
}  // namespace cpu
}  // namespace switchyard
