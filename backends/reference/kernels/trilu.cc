// trilu: each output element (..., i, j) is the input's when j - i >= k
// (upper) or j - i <= k (lower), else zero bytes.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/trilu_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class TriluKernel : public MovementKernel {
 public:
  TriluKernel(const TriluAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "trilu", 1, 1, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    const int rank = x.shape().rank();
    const size_t size = DTypeSize(x.dtype());
    for (int64_t e = 0; e < x.num_elements(); ++e) {
      const std::vector<int64_t> index = Unravel(e, x.shape());
      const int64_t i = index[rank - 2], j = index[rank - 1];
      // j - i cannot overflow, whatever k is.
      const bool kept = attrs_.upper ? j - i >= attrs_.k : j - i <= attrs_.k;
      if (kept) {
        CopyElement(x, e, y, e);
      } else {
        std::memset(y.data<char>() + e * size, 0, size);
      }
    }
    return absl::OkStatus();
  }

 private:
  TriluAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "trilu",
                              &MakeKernelWithAttrs<TriluKernel, TriluAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
