// Pad, as numpy.pad, written out here again (independently of
// ops/shape_geometry.h): along each dim, output index o stands for input
// index i = o - begin. Inside [0, n) it is copied. Outside: constant mode
// writes the value (converted to the dtype); edge copies the nearest end;
// reflect mirrors about the end elements, again and again while outside
// (numpy's rule: ... 2 1 | 0 1 2 3 | 2 1 0 1 ...).

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace reference {
namespace {

// The input index for i (outside [0, n)) by edge or reflect.
int64_t Fold(PadMode mode, int64_t i, int64_t n) {
  if (mode == PadMode::kEdge) return i < 0 ? 0 : n - 1;
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

class PadKernel : public MovementKernel {
 public:
  PadKernel(PadAttrs attrs, const RefDevice& device)
      : MovementKernel(device, "pad", 1, 1, 1), attrs_(std::move(attrs)) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    const int rank = in.shape().rank();
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      std::vector<int64_t> i = Unravel(j, out.shape());
      bool fill = false;
      for (int d = 0; d < rank; ++d) {
        const int64_t n = in.shape().dim(d);
        i[d] -= attrs_.pads[d];
        if (i[d] >= 0 && i[d] < n) continue;
        if (attrs_.mode == PadMode::kConstant) {
          fill = true;
          break;
        }
        i[d] = Fold(attrs_.mode, i[d], n);
      }
      if (fill) {
        SetElementFromDouble(out.data<void>(), out.dtype(), j, attrs_.value);
      } else {
        CopyElement(in, Ravel(i, in.shape()), out, j);
      }
    }
    return absl::OkStatus();
  }

 private:
  PadAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "pad",
    &MakeKernelWithAttrs<PadKernel, PadAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
