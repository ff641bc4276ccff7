// Slice, with ONNX's rules written out here again (independently of
// ops/shape_geometry.h, so the oracle checks that code too): per sliced
// axis, start and end count from the end when negative, then clamp to
// [0, n] (step > 0) or start to [0, n - 1] and end to [-1, n - 1]
// (step < 0). Output index o reads input start + o * step along each axis.

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class SliceKernel : public MovementKernel {
 public:
  SliceKernel(SliceAttrs attrs, const RefDevice& device)
      : MovementKernel(device, "slice", 1, 1, 1), attrs_(std::move(attrs)) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    const int rank = in.shape().rank();
    std::vector<int64_t> start(rank, 0), step(rank, 1);
    for (size_t k = 0; k < attrs_.starts.size(); ++k) {
      const int64_t axis_attr =
          attrs_.axes.empty() ? static_cast<int64_t>(k) : attrs_.axes[k];
      const int axis =
          static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
      const int64_t n = in.shape().dim(axis);
      const int64_t s = attrs_.steps.empty() ? 1 : attrs_.steps[k];
      int64_t first = attrs_.starts[k];
      if (first < 0) first += n;
      first = s > 0 ? std::clamp<int64_t>(first, 0, n)
                    : std::clamp<int64_t>(first, 0, std::max<int64_t>(0, n - 1));
      start[axis] = first;
      step[axis] = s;
    }
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      std::vector<int64_t> i = Unravel(j, out.shape());
      // Only dims with two or more outputs ever step (a huge step times 0).
      for (int d = 0; d < rank; ++d) {
        i[d] = start[d] + (i[d] == 0 ? 0 : i[d] * step[d]);
      }
      CopyElement(in, Ravel(i, in.shape()), out, j);
    }
    return absl::OkStatus();
  }

 private:
  SliceAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "slice",
    &MakeKernelWithAttrs<SliceKernel, SliceAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
