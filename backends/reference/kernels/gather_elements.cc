// gather_elements: every index is checked first (one outside [-n, n) is
// InvalidArgument, ops/gather_scatter_geometry.h, and nothing is read);
// then output element p (a multi-index of indices) is data at p with its
// axis coordinate replaced by indices[p] (plus n when negative).

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class GatherElementsKernel : public MovementKernel {
 public:
  GatherElementsKernel(const GatherElementsAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "gather_elements", 2, 2, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const int rank = data.shape().rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const int64_t n = data.shape().dim(axis);
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t v = Index(indices, k);
      if (v < -n || v >= n) {
        return IndexOutOfRange("gather_elements", indices.shape(), k, v, axis, n);
      }
    }
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      std::vector<int64_t> p = Unravel(k, indices.shape());
      const int64_t v = Index(indices, k);
      p[axis] = v < 0 ? v + n : v;
      CopyElement(data, Ravel(p, data.shape()), *outputs[0], k);
    }
    return absl::OkStatus();
  }

 private:
  static int64_t Index(const Tensor& indices, int64_t k) {
    return indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                            : indices.data<int32_t>()[k];
  }

  GatherElementsAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "gather_elements",
    &MakeKernelWithAttrs<GatherElementsKernel, GatherElementsAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
