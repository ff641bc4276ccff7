// TopK as its definition reads: for each row along the axis, pick k times
// the best element not yet picked (scanning by index, so of equal values the
// lower index wins; NaN above every number), O(n * k). Values are compared
// in their own type, so int64 beyond 2^53 stays exact.

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/topk_attrs.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Whether `a` beats the current pick `b`.
template <typename T>
bool Beats(T a, T b, bool largest) {
  if (IsNan(a) || IsNan(b)) return largest ? IsNan(a) && !IsNan(b) : IsNan(b) && !IsNan(a);
  return largest ? a > b : a < b;
}

template <typename T>
class TopKKernel : public MovementKernel {
 public:
  TopKKernel(const TopKAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, TopKAttrs::kOp, 1, 1, 2), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& values = *outputs[0];
    Tensor& indices = *outputs[1];
    const int rank = in.shape().rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const int64_t n = in.shape().dim(axis);
    std::vector<int64_t> row_dims = in.shape().dims();
    row_dims[axis] = 1;
    const Shape rows(row_dims);
    for (int64_t r = 0; r < rows.num_elements(); ++r) {
      std::vector<int64_t> at = Unravel(r, rows);
      std::vector<bool> picked(static_cast<size_t>(n), false);
      for (int64_t j = 0; j < attrs_.k; ++j) {
        int64_t best = -1;
        for (int64_t m = 0; m < n; ++m) {
          if (picked[m]) continue;
          at[axis] = m;
          const T v = in.data<T>()[Ravel(at, in.shape())];
          if (best < 0) {
            best = m;
            continue;
          }
          at[axis] = best;
          if (Beats(v, in.data<T>()[Ravel(at, in.shape())], attrs_.largest)) best = m;
        }
        picked[best] = true;
        at[axis] = best;
        const T v = in.data<T>()[Ravel(at, in.shape())];
        at[axis] = j;
        values.data<T>()[Ravel(at, values.shape())] = v;
        indices.data<int64_t>()[Ravel(at, indices.shape())] = best;
      }
    }
    return absl::OkStatus();
  }

 private:
  TopKAttrs attrs_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeTopK(const Node& node, const Graph& graph,
                                                 RefDevice& device) {
  return MakeKernelWithAttrs<TopKKernel<T>, TopKAttrs, RefDevice>(node, graph, device);
}

SY_REGISTER_KERNEL_FOR_TYPES(RefKernels(), TopKAttrs::kOp, MakeTopK, float, double,
                             int64_t, int32_t);

}  // namespace
}  // namespace reference
}  // namespace switchyard
