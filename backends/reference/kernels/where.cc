// Where: output index o reads condition, x and y each at o's last
// rank(operand) entries, taken as 0 where the operand's dim is 1 (numpy
// broadcasting), and copies x's element where the condition is non-zero,
// else y's. Registered under bool (the registry keys by the first operand,
// the condition) for x and y of every dtype.

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"

namespace switchyard {
namespace reference {
namespace {

int64_t BroadcastFlat(const std::vector<int64_t>& o, const Shape& shape) {
  const size_t shift = o.size() - shape.rank();
  std::vector<int64_t> i(shape.rank());
  for (int d = 0; d < shape.rank(); ++d) {
    i[d] = shape.dim(d) == 1 ? 0 : o[shift + d];
  }
  return Ravel(i, shape);
}

class WhereKernel : public MovementKernel {
 public:
  explicit WhereKernel(const RefDevice& device)
      : MovementKernel(device, "where", 3, 3, 1) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& condition = *inputs[0];
    Tensor& out = *outputs[0];
    if (condition.dtype() != DType::kBool) {
      return absl::InternalError("reference where: condition is not bool");
    }
    const uint8_t* c = condition.data<uint8_t>();
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      const std::vector<int64_t> o = Unravel(j, out.shape());
      const bool pick_x = c[BroadcastFlat(o, condition.shape())] != 0;
      const Tensor& from = pick_x ? *inputs[1] : *inputs[2];
      CopyElement(from, BroadcastFlat(o, from.shape()), out, j);
    }
    return absl::OkStatus();
  }
};

SY_REGISTER_KERNEL(RefKernels(), "where", DType::kBool,
                   &MakeKernel<WhereKernel, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
