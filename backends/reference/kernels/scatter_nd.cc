// scatter_nd: every tuple entry is checked first (entry k outside [-n, n),
// n = data's dim k, is InvalidArgument, ops/gather_scatter_geometry.h, and
// nothing is written); then the output is data's copy, and for each
// element (i..., j...) of updates in row-major order (i: indices' dims but
// the last), the output at (indices[i..., 0], ..., indices[i..., m - 1],
// j...) takes it (scatter_update.h).

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/movement.h"
#include "backends/reference/kernels/scatter_update.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class ScatterNdKernel : public MovementKernel {
 public:
  ScatterNdKernel(const ScatterNdAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "scatter_nd", 3, 3, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Tensor& updates = *inputs[2];
    Tensor& out = *outputs[0];
    const int q = indices.shape().rank();
    const int64_t m = indices.shape().dim(q - 1);
    for (int64_t p = 0; p < indices.num_elements(); ++p) {
      const int axis = static_cast<int>(p % m);
      const int64_t n = data.shape().dim(axis);
      const int64_t v = Index(indices, p);
      if (v < -n || v >= n) {
        return IndexOutOfRange("scatter_nd", indices.shape(), p, v, axis, n);
      }
    }
    for (int64_t e = 0; e < data.num_elements(); ++e) CopyElement(data, e, out, e);
    for (int64_t e = 0; e < updates.num_elements(); ++e) {
      const std::vector<int64_t> u = Unravel(e, updates.shape());
      std::vector<int64_t> at(u.begin(), u.begin() + q - 1);
      at.push_back(0);
      std::vector<int64_t> d;
      for (int64_t k = 0; k < m; ++k) {
        at[q - 1] = k;
        const int64_t v = Index(indices, Ravel(at, indices.shape()));
        d.push_back(v < 0 ? v + data.shape().dim(static_cast<int>(k)) : v);
      }
      d.insert(d.end(), u.begin() + q - 1, u.end());
      UpdateElement(attrs_.reduction, updates, e, out, Ravel(d, data.shape()));
    }
    return absl::OkStatus();
  }

 private:
  static int64_t Index(const Tensor& indices, int64_t k) {
    return indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                            : indices.data<int32_t>()[k];
  }

  ScatterNdAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeScatterNd(const Node& node, const Graph& graph,
                                                      RefDevice& device) {
  SY_ASSIGN_OR_RETURN(ScatterNdAttrs attrs, ScatterNdAttrs::FromAttrMap(node.attrs));
  const DType dtype = graph.value(node.inputs[0]).dtype;
  if (!ScatterTakes(dtype, attrs.reduction)) {
    return absl::UnimplementedError(absl::StrCat(
        "the reference's scatter_nd has no reduction in ", DTypeName(dtype)));
  }
  return std::make_unique<ScatterNdKernel>(attrs, device);
}

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "scatter_nd", &MakeScatterNd);

}  // namespace
}  // namespace reference
}  // namespace switchyard
