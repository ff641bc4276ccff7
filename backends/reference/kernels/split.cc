// Split: output k at index o reads the input at o with o[axis] + offset_k,
// offset_k the sum of the sizes before k.

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class SplitKernel : public MovementKernel {
 public:
  SplitKernel(const SplitAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "split", 1, 1,
                       static_cast<int>(attrs.sizes.size())),
        axis_(attrs.axis) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    const int rank = in.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t offset = 0;
    for (Tensor* out : outputs) {
      for (int64_t j = 0; j < out->num_elements(); ++j) {
        std::vector<int64_t> o = Unravel(j, out->shape());
        o[axis] += offset;
        CopyElement(in, Ravel(o, in.shape()), *out, j);
      }
      offset += out->shape().dim(axis);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "split",
    &MakeKernelWithAttrs<SplitKernel, SplitAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
