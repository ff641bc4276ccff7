// reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod, as ONNX's
// Reduce* (and numpy): each output element combines every input element
// whose index agrees with it on the kept axes. Plain loops: every input
// element is mapped to its output element by dropping (or zeroing) its
// reduced coordinates. float32: sums and products in double, divided by the
// count for the mean (0 / 0 is NaN for an empty one), rounded once; max and
// min propagate NaN, and an empty one is -inf / +inf; an empty product is
// 1. Integers (max, min; prod in int64): exact, products modulo 2^64, an
// empty max the type's lowest value and an empty min its highest.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/reference/kernels/kernels.h"
#include "ops/kernel_lists.h"
#include "ops/reduce_geometry.h"
#include "ops/reduction.h"

namespace switchyard {
namespace reference {
namespace {

// Float32 in double; integers as int64.
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <typename T>
class ReduceKernel : public RefKernel {
 public:
  ReduceKernel(const RefDevice& device, Reduction kind,
               std::vector<bool> reduced)
      : RefKernel(device, DTypeOf<T>(), 1, 1),
        kind_(kind),
        reduced_(std::move(reduced)) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& shape = inputs[0]->shape();
    const int rank = shape.rank();
    const int64_t out_count = output.shape().num_elements();
    std::vector<Acc<T>> acc(out_count, Init());
    const T* x = inputs[0]->data<T>();
    std::vector<int64_t> index(rank, 0);
    const int64_t total = shape.num_elements();
    for (int64_t e = 0; e < total; ++e) {
      // Row-major index of the output element over the kept axes.
      int64_t o = 0;
      for (int d = 0; d < rank; ++d) {
        if (!reduced_[d]) o = o * shape.dim(d) + index[d];
      }
      acc[o] = Combine(acc[o], static_cast<Acc<T>>(x[e]));
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
    T* y = output.data<T>();
    for (int64_t o = 0; o < out_count; ++o) {
      Acc<T> v = acc[o];
      if (kind_ == Reduction::kMean) v /= static_cast<double>(per_output);
      y[o] = static_cast<T>(v);
    }
  }

 private:
  Acc<T> Init() const { return ReductionIdentity<T>(kind_); }

  // A NaN, once met, stays (max, min).
  Acc<T> Combine(Acc<T> acc, Acc<T> v) const {
    const bool acc_nan = std::isnan(static_cast<double>(acc));
    const bool v_nan = std::isnan(static_cast<double>(v));
    switch (kind_) {
      case Reduction::kMax:
        return acc_nan ? acc : (v_nan || v > acc ? v : acc);
      case Reduction::kMin:
        return acc_nan ? acc : (v_nan || v < acc ? v : acc);
      case Reduction::kProd:
        if constexpr (std::is_integral_v<Acc<T>>) {
          return static_cast<int64_t>(static_cast<uint64_t>(acc) *
                                      static_cast<uint64_t>(v));
        } else {
          return acc * v;
        }
      default:
        return acc + v;
    }
  }

  Reduction kind_;
  std::vector<bool> reduced_;
};

template <Reduction kKind, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeReduce(const Node& node,
                                                   const Graph& graph,
                                                   RefDevice& device) {
  absl::StatusOr<std::vector<bool>> reduced = ReducedAxesOf(node, graph);
  if (!reduced.ok()) return reduced.status();
  return std::make_unique<ReduceKernel<T>>(device, kKind, *std::move(reduced));
}

// The (op, dtype) list is ops/kernel_lists.h's, shared with the cpu
// backend.
#define SY_REGISTER_REDUCE(op, kind, T) \
  SY_REGISTER_KERNEL(RefKernels(), op, DTypeOf<T>(), (&MakeReduce<Reduction::kind, T>));
SY_REDUCE_KERNELS(SY_REGISTER_REDUCE)
#undef SY_REGISTER_REDUCE

}  // namespace
}  // namespace reference
}  // namespace switchyard
