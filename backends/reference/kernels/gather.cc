// Gather: output index (a..., i..., b...) reads data (a..., idx, b...) with
// idx = indices[i...], plus n when negative. Every index is checked first:
// one outside [-n, n) is InvalidArgument (ops/shape_geometry.h
// GatherIndexError) and nothing is read.

#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class GatherKernel : public MovementKernel {
 public:
  GatherKernel(const GatherAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "gather", 2, 2, 1), axis_(attrs.axis) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    Tensor& out = *outputs[0];
    const int rank = data.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t n = data.shape().dim(axis);
    std::vector<int64_t> index(indices.num_elements());
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t v = indices.dtype() == DType::kInt64
                            ? indices.data<int64_t>()[k]
                            : indices.data<int32_t>()[k];
      if (v < -n || v >= n) {
        return GatherIndexError(v, k, indices.shape(), n, axis);
      }
      index[k] = v < 0 ? v + n : v;
    }
    const int index_rank = indices.shape().rank();
    for (int64_t j = 0; j < out.num_elements(); ++j) {
      const std::vector<int64_t> o = Unravel(j, out.shape());
      // o = (a..., i..., b...): a has `axis` entries, i index_rank.
      std::vector<int64_t> i(o.begin() + axis, o.begin() + axis + index_rank);
      std::vector<int64_t> d(o.begin(), o.begin() + axis);
      d.push_back(index[Ravel(i, indices.shape())]);
      d.insert(d.end(), o.begin() + axis + index_rank, o.end());
      CopyElement(data, Ravel(d, data.shape()), out, j);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    RefKernels(), "gather",
    &MakeKernelWithAttrs<GatherKernel, GatherAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
