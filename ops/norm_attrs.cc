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

}  // namespace switchyard
