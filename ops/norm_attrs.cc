#include "ops/norm_attrs.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

const std::vector<AttrSpec>& BatchNormAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = BatchNormAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"epsilon", AttrType::kFloat, ops_internal::DefaultOf(d, "epsilon"),
         "> 0 and finite, added to the variance"},
    };
  }();
  return *specs;
}

absl::StatusOr<BatchNormAttrs> BatchNormAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "batch_norm"));
  BatchNormAttrs a;
  SY_ASSIGN_OR_RETURN(a.epsilon, attrs.GetFloat("epsilon", a.epsilon));
  // A zero epsilon divides by zero for a channel of zero variance.
  if (!(a.epsilon > 0.0 && std::isfinite(a.epsilon))) {  // also rejects NaN
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'epsilon' must be > 0 and finite, got ",
                     a.epsilon, " (PyTorch's default is 1e-5)"));
  }
  return a;
}

AttrMap BatchNormAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("epsilon", epsilon);
  return attrs;
}

const std::vector<AttrSpec>& LayerNormAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = LayerNormAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"axis", AttrType::kInt, ops_internal::DefaultOf(d, "axis"),
         "the first normalized dimension (negative from the end)"},
        {"epsilon", AttrType::kFloat, ops_internal::DefaultOf(d, "epsilon"),
         ">= 0 and finite, added to the variance"},
    };
  }();
  return *specs;
}

absl::StatusOr<LayerNormAttrs> LayerNormAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "layer_norm"));
  LayerNormAttrs a;
  SY_ASSIGN_OR_RETURN(a.axis, attrs.GetInt("axis", a.axis));
  SY_ASSIGN_OR_RETURN(a.epsilon, attrs.GetFloat("epsilon", a.epsilon));
  // Zero is allowed (ONNX allows it; a constant slice then divides by 0).
  if (!(a.epsilon >= 0.0 && std::isfinite(a.epsilon))) {  // rejects NaN
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'epsilon' must be >= 0 and finite, got ",
                     a.epsilon, " (ONNX's default is 1e-5)"));
  }
  return a;
}

AttrMap LayerNormAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("axis", axis);
  attrs.Set("epsilon", epsilon);
  return attrs;
}

}  // namespace switchyard
