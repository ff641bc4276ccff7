// Transpose: out[o_0, ..., o_{r-1}] = in[i] with i[perm[d]] = o_d.

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "core/status_macros.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class TransposeKernel : public MovementKernel {
 public:
  TransposeKernel(const RefDevice& device, std::vector<int64_t> perm)
      : MovementKernel(device, "transpose", 1, 1, 1), perm_(std::move(perm)) {}

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

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "transpose",
    [](const Node& node, const Graph&,
       RefDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      SY_ASSIGN_OR_RETURN(TransposeAttrs attrs,
                          TransposeAttrs::FromAttrMap(node.attrs));
      return std::make_unique<TransposeKernel>(device, std::move(attrs.perm));
    });

}  // namespace
}  // namespace reference
}  // namespace switchyard
