// gather_nd: every tuple entry is checked first (entry k outside [-n, n),
// n = data's dim batch_dims + k, is InvalidArgument, ops/
// gather_scatter_geometry.h, and nothing is read); then output element
// (i..., j...) (i: indices' dims but the last, j: the slice's) is data at
// (i[:batch_dims]..., indices[i..., 0], ..., indices[i..., m - 1], j...).

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/kernels/movement.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class GatherNdKernel : public MovementKernel {
 public:
  GatherNdKernel(const GatherNdAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "gather_nd", 2, 2, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    Tensor& out = *outputs[0];
    const int b = static_cast<int>(attrs_.batch_dims);
    const int q = indices.shape().rank();
    const int64_t m = indices.shape().dim(q - 1);
    for (int64_t p = 0; p < indices.num_elements(); ++p) {
      const int axis = b + static_cast<int>(p % m);
      const int64_t n = data.shape().dim(axis);
      const int64_t v = Index(indices, p);
      if (v < -n || v >= n) {
        return IndexOutOfRange("gather_nd", indices.shape(), p, v, axis, n);
      }
    }
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const std::vector<int64_t> o = Unravel(e, out.shape());
      // o = (i..., j...): i has q - 1 entries.
      std::vector<int64_t> at(o.begin(), o.begin() + q - 1);
      at.push_back(0);
      std::vector<int64_t> d(o.begin(), o.begin() + b);
      for (int64_t k = 0; k < m; ++k) {
        at[q - 1] = k;
        const int64_t v = Index(indices, Ravel(at, indices.shape()));
        d.push_back(v < 0 ? v + data.shape().dim(b + static_cast<int>(k)) : v);
      }
      d.insert(d.end(), o.begin() + q - 1, o.end());
      CopyElement(data, Ravel(d, data.shape()), out, e);
    }
    return absl::OkStatus();
  }

 private:
  static int64_t Index(const Tensor& indices, int64_t k) {
    return indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                            : indices.data<int32_t>()[k];
  }

  GatherNdAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "gather_nd",
                              &MakeKernelWithAttrs<GatherNdKernel, GatherNdAttrs, RefDevice>);

}  // namespace
}  // namespace reference
}  // namespace switchyard
