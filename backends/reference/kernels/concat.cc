// Concat: output index o reads operand k at o with o[axis] - offset_k, where
// operand k is the one whose stretch [offset_k, offset_k + its length) along
// the axis holds o[axis].

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class ConcatKernel : public MovementKernel {
 public:
  ConcatKernel(const ConcatAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "concat", 1, -1, 1), axis_(attrs.axis) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    const int rank = out.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      std::vector<int64_t> o = Unravel(j, out.shape());
      size_t k = 0;
      while (o[axis] >= inputs[k]->shape().dim(axis)) {
        o[axis] -= inputs[k]->shape().dim(axis);
        ++k;
      }
      CopyElement(*inputs[k], Ravel(o, inputs[k]->shape()), out, j);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "concat",
    &MakeKernelWithAttrs<ConcatKernel, ConcatAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
