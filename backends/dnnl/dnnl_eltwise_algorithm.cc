#include "backends/dnnl/dnnl_eltwise_algorithm.h"

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::algorithm;

absl::StatusOr<EltwiseAlgorithm> EltwiseAlgorithmOf(const Node& node) {
  const std::string& op = node.op;
  // Ops without attributes, and the oneDNN formula each is.
  if (op == "relu") return EltwiseAlgorithm{algorithm::eltwise_relu};
  if (op == "sigmoid") return EltwiseAlgorithm{algorithm::eltwise_logistic};
  if (op == "tanh") return EltwiseAlgorithm{algorithm::eltwise_tanh};
  if (op == "sqrt") return EltwiseAlgorithm{algorithm::eltwise_sqrt};
  if (op == "abs") return EltwiseAlgorithm{algorithm::eltwise_abs};
  // x * relu6(x + 3) / 6 is x * clamp(x / 6 + 0.5, 0, 1).
  if (op == "hard_swish") return EltwiseAlgorithm{algorithm::eltwise_hardswish};
  // The exact GELU, 0.5 * x * (1 + erf(x / sqrt 2)).
  if (op == "gelu") return EltwiseAlgorithm{algorithm::eltwise_gelu_erf};
  if (op == LeakyReluAttrs::kOp) {
    // oneDNN's relu with a slope: x > 0 ? x : alpha * x.
    SY_ASSIGN_OR_RETURN(LeakyReluAttrs a, LeakyReluAttrs::FromAttrMap(node.attrs));
    return EltwiseAlgorithm{algorithm::eltwise_relu, static_cast<float>(a.alpha)};
  }
  if (op == ClipAttrs::kOp) {
    // ONNX lets max win over a larger min; oneDNN's clip_v2 does not promise
    // that, so crossed bounds stay on another device.
    SY_ASSIGN_OR_RETURN(ClipAttrs clip, ClipAttrs::FromAttrMap(node.attrs));
    if (clip.min > clip.max) {
      return Refuse(node, absl::StrCat("min ", clip.min, " > max ", clip.max,
                                       ": the oneDNN device clips with min <= max only"));
    }
    return EltwiseAlgorithm{algorithm::eltwise_clip_v2, static_cast<float>(clip.min),
                            static_cast<float>(clip.max)};
  }
  if (op == HardSigmoidAttrs::kOp) {
    // clamp(alpha * x + beta, 0, 1)
    SY_ASSIGN_OR_RETURN(HardSigmoidAttrs a, HardSigmoidAttrs::FromAttrMap(node.attrs));
    return EltwiseAlgorithm{algorithm::eltwise_linear, static_cast<float>(a.alpha),
                            static_cast<float>(a.beta), /*then_clip_to_unit=*/true};
  }
  // exp is left out on purpose: oneDNN 2.6's exp turns NaN into inf.
  return Refuse(node, absl::StrCat("op ", op, " is no oneDNN eltwise algorithm"));
}

void AppendEltwise(dnnl::post_ops& post_ops, const EltwiseAlgorithm& e) {
  post_ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
  if (e.then_clip_to_unit) post_ops.append_eltwise(1.0f, algorithm::eltwise_clip_v2, 0.0f, 1.0f);
}

}  // namespace onednn
}  // namespace switchyard
