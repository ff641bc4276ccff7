// cumsum: each output element is the sum, in double (floats) or modulo 2^64
// (integers), of the input elements on its line along the axis that come
// before it (or after it, reversed), itself included unless exclusive;
// rounded once to the element type.

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/cumsum_attrs.h"
#include "ops/kernel_lists.h"

namespace switchyard {
namespace reference {
namespace {

template <typename T>
class CumSumKernel : public MovementKernel {
 public:
  CumSumKernel(const CumSumAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "cumsum", 1, 1, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + shape.rank()
                                                      : attrs_.axis);
    const T* x = inputs[0]->data<T>();
    T* y = outputs[0]->data<T>();
    using Sum = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
    for (int64_t j = 0; j < shape.num_elements(); ++j) {
      std::vector<int64_t> index = Unravel(j, shape);
      const int64_t i = index[axis];
      Sum sum = 0;
      for (int64_t k = 0; k < shape.dim(axis); ++k) {
        const bool before = attrs_.reverse ? k > i : k < i;
        if (before || (k == i && !attrs_.exclusive)) {
          index[axis] = k;
          sum += static_cast<Sum>(x[Ravel(index, shape)]);
        }
      }
      y[j] = static_cast<T>(sum);
    }
    return absl::OkStatus();
  }

 private:
  CumSumAttrs attrs_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeCumSum(const Node& node, const Graph& graph,
                                                   RefDevice& device) {
  return MakeKernelWithAttrs<CumSumKernel<T>, CumSumAttrs, RefDevice>(node, graph,
                                                                      device);
}

SY_REGISTER_KERNEL_FOR_TYPES(RefKernels(), "cumsum", MakeCumSum, SY_CUMSUM_TYPES);

}  // namespace
}  // namespace reference
}  // namespace switchyard
