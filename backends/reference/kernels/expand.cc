// Expand: output index o reads the input at o's last rank(input) entries,
// each taken as 0 where the input's dim is 1 (numpy broadcasting).

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"

namespace switchyard {
namespace reference {
namespace {

// The index of broadcast operand `shape` that output index `o` reads.
std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& o,
                                    const Shape& shape) {
  const size_t shift = o.size() - shape.rank();
  std::vector<int64_t> i(shape.rank());
  for (int d = 0; d < shape.rank(); ++d) {
    i[d] = shape.dim(d) == 1 ? 0 : o[shift + d];
  }
  return i;
}

class ExpandKernel : public MovementKernel {
 public:
  explicit ExpandKernel(const RefDevice& device)
      : MovementKernel(device, "expand", 1, 1, 1) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      const std::vector<int64_t> o = Unravel(j, out.shape());
      CopyElement(in, Ravel(BroadcastIndex(o, in.shape()), in.shape()), out, j);
    }
    return absl::OkStatus();
  }
};

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "expand",
                              &MakeKernel<ExpandKernel, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
