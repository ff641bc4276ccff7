// pad on oneDNN, only when it adds nothing (every pad 0, as in DenseNet's
// transitions exported with an explicit zero Pad): the output is the
// input's bytes under the same shape, a view (dnnl_views.cc). Any real
// padding is refused and runs on the cpu backend.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {

absl::Status CheckPad(const Node& node, const Graph&, const NodeShapes&) {
  absl::StatusOr<PadAttrs> a = PadAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  for (int64_t p : a->pads) {
    if (p != 0) {
      return Refuse(
          node,
          absl::StrCat(
              "pads [", absl::StrJoin(a->pads, ", "),
              "] are not all zero; the oneDNN device runs only a pad that adds "
              "nothing (a view), so this one runs on the cpu backend"));
    }
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
