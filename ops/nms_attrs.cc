#include "ops/nms_attrs.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::DefaultOf;

const std::vector<AttrSpec>& NonMaxSuppressionAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = NonMaxSuppressionAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"max_output_boxes_per_class", AttrType::kInt,
         DefaultOf(d, "max_output_boxes_per_class"),
         ">= 0; boxes selected per (batch, class) at most; 0 selects none "
         "(ONNX)"},
        {"iou_threshold", AttrType::kFloat, DefaultOf(d, "iou_threshold"),
         "in [0, 1]; a box whose IoU with a selected box is > this is "
         "suppressed"},
        {"score_threshold", AttrType::kFloat, DefaultOf(d, "score_threshold"),
         "not NaN or +inf; only boxes with score > this are candidates; -inf: "
         "no threshold"},
        {"center_point_box", AttrType::kInt, DefaultOf(d, "center_point_box"),
         "0: [y1, x1, y2, x2] diagonal corners; 1: [x_center, y_center, "
         "width, height]"},
    };
  }();
  return *specs;
}

absl::StatusOr<NonMaxSuppressionAttrs> NonMaxSuppressionAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "non_max_suppression"));
  NonMaxSuppressionAttrs a;
  SY_ASSIGN_OR_RETURN(a.max_output_boxes_per_class,
                      ops_internal::GetIntAtLeast(
                          attrs, "max_output_boxes_per_class",
                          a.max_output_boxes_per_class, 0));
  SY_ASSIGN_OR_RETURN(a.iou_threshold,
                      attrs.GetFloat("iou_threshold", a.iou_threshold));
  SY_ASSIGN_OR_RETURN(a.score_threshold,
                      attrs.GetFloat("score_threshold", a.score_threshold));
  SY_ASSIGN_OR_RETURN(a.center_point_box,
                      attrs.GetInt("center_point_box", a.center_point_box));
  if (!(a.iou_threshold >= 0.0 && a.iou_threshold <= 1.0)) {  // NaN too
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'iou_threshold' must be in [0, 1] (as ONNX requires), got ",
        a.iou_threshold));
  }
  if (std::isnan(a.score_threshold) || a.score_threshold == INFINITY) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'score_threshold' must be a number below +inf (-inf for "
        "no threshold), got ",
        a.score_threshold));
  }
  if (a.center_point_box != 0 && a.center_point_box != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'center_point_box' must be 0 ([y1, x1, y2, x2] corners) or "
        "1 ([x_center, y_center, width, height]), got ",
        a.center_point_box));
  }
  return a;
}

AttrMap NonMaxSuppressionAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("max_output_boxes_per_class", max_output_boxes_per_class);
  attrs.Set("iou_threshold", iou_threshold);
  attrs.Set("score_threshold", score_threshold);
  attrs.Set("center_point_box", center_point_box);
  return attrs;
}

}  // namespace switchyard
