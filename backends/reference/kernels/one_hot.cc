// one_hot: each output element (a..., d, b...) is the on value when the
// index at (a..., b...) names class d, else the off value. The oracle
// spells ONNX's rule out itself: an integer in [-depth, depth) names
// itself (plus depth when negative); a float is truncated first, and one
// that is not finite names nothing.

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/kernel_lists.h"
#include "ops/one_hot_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class OneHotKernel : public MovementKernel {
 public:
  OneHotKernel(const OneHotAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "one_hot", 2, 2, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& indices = *inputs[0];
    const Tensor& values = *inputs[1];
    Tensor& out = *outputs[0];
    const int rank = out.shape().rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const double depth = static_cast<double>(attrs_.depth);
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      std::vector<int64_t> index = Unravel(e, out.shape());
      const int64_t d = index[axis];
      index.erase(index.begin() + axis);
      // Exact: int32 and float32 values, and int64 ones within 2^53 of
      // [-depth, depth), are doubles; larger ones are out of range anyway.
      double v = ElementAsDouble(indices.data<void>(), indices.dtype(),
                                 Ravel(index, indices.shape()));
      v = std::trunc(v);
      const bool named = std::isfinite(v) && v >= -depth && v < depth &&
                         (v < 0 ? v + depth : v) == static_cast<double>(d);
      CopyElement(values, named ? 1 : 0, out, e);
    }
    return absl::OkStatus();
  }

 private:
  OneHotAttrs attrs_;
};

// One kernel reads every indices dtype; the list is the cpu backend's
// (ops/kernel_lists.h).
[[maybe_unused]] const bool kRegistered =
    RegisterForTypes<SY_ONE_HOT_INDEX_TYPES>(RefKernels(), "one_hot", [](auto) {
      return &MakeKernelWithAttrs<OneHotKernel, OneHotAttrs, RefDevice>;
    });

}  // namespace
}  // namespace reference
}  // namespace switchyard
