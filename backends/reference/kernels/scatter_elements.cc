// scatter_elements: every index is checked first (one outside [-n, n) is
// InvalidArgument, ops/gather_scatter_geometry.h, and nothing is written);
// then the output is data's copy, and for each position p of indices in
// row-major order, the output at p with its axis coordinate replaced by
// indices[p] (plus n when negative) takes updates[p] (scatter_update.h).

#include <cstdint>
#include <cstring>
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

class ScatterElementsKernel : public MovementKernel {
 public:
  ScatterElementsKernel(const ScatterElementsAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "scatter_elements", 3, 3, 1), attrs_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    Tensor& out = *outputs[0];
    const int rank = data.shape().rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const int64_t n = data.shape().dim(axis);
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t v = Index(indices, k);
      if (v < -n || v >= n) {
        return IndexOutOfRange("scatter_elements", indices.shape(), k, v, axis, n);
      }
    }
    for (int64_t e = 0; e < data.num_elements(); ++e) CopyElement(data, e, out, e);
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      std::vector<int64_t> p = Unravel(k, indices.shape());
      const int64_t v = Index(indices, k);
      p[axis] = v < 0 ? v + n : v;
      UpdateElement(attrs_.reduction, *inputs[2], k, out, Ravel(p, data.shape()));
    }
    return absl::OkStatus();
  }

 private:
  static int64_t Index(const Tensor& indices, int64_t k) {
    return indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                            : indices.data<int32_t>()[k];
  }

  ScatterElementsAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeScatterElements(const Node& node,
                                                            const Graph& graph,
                                                            RefDevice& device) {
  SY_ASSIGN_OR_RETURN(ScatterElementsAttrs attrs,
                      ScatterElementsAttrs::FromAttrMap(node.attrs));
  const DType dtype = graph.value(node.inputs[0]).dtype;
  if (!ScatterTakes(dtype, attrs.reduction)) {
    return absl::UnimplementedError(absl::StrCat(
        "the reference's scatter_elements has no reduction in ", DTypeName(dtype)));
  }
  return std::make_unique<ScatterElementsKernel>(attrs, device);
}

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "scatter_elements", &MakeScatterElements);

}  // namespace
}  // namespace reference
}  // namespace switchyard
