#include "ops/reduce_attrs.h"

#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

const std::vector<AttrSpec>& ReduceAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = ReduceAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"axes", AttrType::kInts, ops_internal::DefaultOf(d, "axes"),
         "distinct axes of the input (negative from the end); [] for all"},
        {"keepdims", AttrType::kBool, ops_internal::DefaultOf(d, "keepdims"),
         "keep each reduced axis with length 1"},
    };
  }();
  return *specs;
}

absl::StatusOr<ReduceAttrs> ReduceAttrs::FromAttrMap(const AttrMap& attrs,
                                                     absl::string_view op) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, op));
  ReduceAttrs a;
  SY_ASSIGN_OR_RETURN(a.axes, attrs.GetInts("axes", a.axes));
  SY_ASSIGN_OR_RETURN(a.keepdims, attrs.GetBool("keepdims", a.keepdims));
  return a;
}

AttrMap ReduceAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("axes", axes);
  attrs.Set("keepdims", keepdims);
  return attrs;
}

}  // namespace switchyard
