// Transpose: out[o_0, ..., o_{r-1}] = in[i] with i[perm[d]] = o_d.

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class TransposeKernel : public MovementKernel {
 public:
  TransposeKernel(TransposeAttrs attrs, const RefDevice& device)
      : MovementKernel(device, "transpose", 1, 1, 1),
        perm_(std::move(attrs.perm)) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      const std::vector<int64_t> o = Unravel(j, out.shape());
      std::vector<int64_t> i(o.size());
      for (size_t d = 0; d < o.size(); ++d) i[perm_[d]] = o[d];
      CopyElement(in, Ravel(i, in.shape()), out, j);
    }
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> perm_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "transpose",
    &MakeKernelWithAttrs<TransposeKernel, TransposeAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
