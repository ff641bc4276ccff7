// argmax and argmin: for each output element, the input elements that agree
// with it on every other axis, visited along the axis in order; the winner
// so far is replaced by a larger (smaller) value, by a NaN when it is not
// one, and on a tie only with select_last_index.

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/kernel_lists.h"
#include "ops/reduce_attrs.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
class ArgReduceKernel : public MovementKernel {
 public:
  ArgReduceKernel(const ArgReduceAttrs& attrs, const RefDevice& device, bool max)
      : MovementKernel(device, max ? "argmax" : "argmin", 1, 1, 1),
        attrs_(attrs),
        max_(max) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const Shape& shape = x.shape();
    const int rank = shape.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    // The output's positions over the input's axes, `axis` of length 1.
    std::vector<int64_t> kept = shape.dims();
    kept[axis] = 1;
    const Shape kept_shape(kept);
    int64_t* out = outputs[0]->data<int64_t>();
    const T* v = x.data<T>();
    for (int64_t o = 0; o < kept_shape.num_elements(); ++o) {
      const std::vector<int64_t> index = Unravel(o, kept_shape);
      int64_t best = 0;
      for (int64_t k = 1; k < shape.dim(axis); ++k) {
        if (Replaces(v[RavelAt(index, axis, k, shape)],
                     v[RavelAt(index, axis, best, shape)])) {
          best = k;
        }
      }
      out[o] = best;
    }
    return absl::OkStatus();
  }

 private:
  // The flat index of `index` with its `axis` coordinate set to k.
  static int64_t RavelAt(std::vector<int64_t> index, int axis, int64_t k,
                         const Shape& shape) {
    index[axis] = k;
    return Ravel(index, shape);
  }

  bool Replaces(T candidate, T winner) const {
    const bool c_nan = std::isnan(static_cast<double>(candidate));
    const bool w_nan = std::isnan(static_cast<double>(winner));
    if (w_nan) return c_nan && attrs_.select_last_index;
    if (c_nan) return true;
    if (candidate == winner) return attrs_.select_last_index;
    return max_ ? candidate > winner : candidate < winner;
  }

  ArgReduceAttrs attrs_;
  bool max_;
};

template <typename T, bool kMax>
absl::StatusOr<std::unique_ptr<Kernel>> MakeArgReduce(const Node& node,
                                                      const Graph&,
                                                      RefDevice& device) {
  absl::StatusOr<ArgReduceAttrs> attrs = ArgReduceAttrs::FromAttrMap(node.attrs, node.op);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ArgReduceKernel<T>>(*attrs, device, kMax);
}

template <bool kMax>
bool RegisterTypes(const char* op) {
  return RegisterForTypes<SY_ARG_REDUCE_TYPES>(
      RefKernels(), op,
      [](auto tag) { return &MakeArgReduce<typename decltype(tag)::type, kMax>; });
}

[[maybe_unused]] const bool kRegistered =
    RegisterTypes<true>("argmax") && RegisterTypes<false>("argmin");

}  // namespace
}  // namespace reference
}  // namespace switchyard
