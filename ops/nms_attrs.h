#ifndef SWITCHYARD_OPS_NMS_ATTRS_H_
#define SWITCHYARD_OPS_NMS_ATTRS_H_

// The attributes of non_max_suppression as a typed struct: the one place
// that converts them to and from the attribute map, and whose defaults are
// the op schema's (ONNX's). The op's rules are in ops/non_max_suppression.cc;
// box decoding and the candidate order the kernels share are in
// ops/nms_geometry.h.
//
//   NonMaxSuppressionAttrs a;              // ONNX's defaults: selects nothing
//   a.max_output_boxes_per_class = 100;
//   a.iou_threshold = 0.5;
//   a.score_threshold = 0.05;
//   graph.AddNodeWithOutputs("non_max_suppression", "nms", {boxes, scores},
//                            a.ToAttrMap(), 2);

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "ops/attr_fields.h"

namespace switchyard {

// non_max_suppression, as ONNX NonMaxSuppression (opset 11+), whose three
// optional scalar inputs are attributes here: output shapes must be known
// when the graph is compiled, and they depend on max_output_boxes_per_class.
struct NonMaxSuppressionAttrs {
  SY_ATTR_STRUCT(NonMaxSuppressionAttrs);
  static constexpr const char* kOp = "non_max_suppression";
  // No score threshold: ONNX's absent score_threshold input.
  static constexpr double kNoScoreThreshold =
      -std::numeric_limits<double>::infinity();

  // At most this many boxes per (batch, class). 0, ONNX's default, selects
  // nothing (ONNX says so; ONNX Runtime clamps a negative value to 0, this
  // op refuses it).
  int64_t max_output_boxes_per_class = 0;
  // A box is suppressed when its IoU with a selected box of the same
  // (batch, class) is > this (strictly).
  double iou_threshold = 0.0;
  // A box is a candidate only when score > this (strictly). -inf, the
  // default, means no threshold (ONNX's absent input): every box whose score
  // is not NaN is a candidate, -inf scores included.
  double score_threshold = kNoScoreThreshold;
  // 0 reads a box as [y1, x1, y2, x2], any two diagonal corners
  // (TensorFlow's layout); 1 as [x_center, y_center, width, height]
  // (PyTorch's).
  int64_t center_point_box = 0;

  bool has_score_threshold() const {
    return score_threshold != kNoScoreThreshold;
  }

  static void DeclareFields(AttrFields<NonMaxSuppressionAttrs>& f) {
    using A = NonMaxSuppressionAttrs;
    f.Field("max_output_boxes_per_class", &A::max_output_boxes_per_class)
        .AtLeast(0)
        .Doc("boxes selected per (batch, class) at most; 0 selects none (ONNX)");
    f.Field("iou_threshold", &A::iou_threshold)
        .InRange(0, 1, "in [0, 1] (as ONNX requires)")
        .Doc("a box whose IoU with a selected box is > this is suppressed");
    f.Field("score_threshold", &A::score_threshold)
        .Check([](double t) { return !std::isnan(t) && t != INFINITY; },
               "a number below +inf (-inf for no threshold)")
        .Doc("only boxes with score > this are candidates");
    f.Field("center_point_box", &A::center_point_box)
        .Check([](int64_t c) { return c == 0 || c == 1; },
               "0 ([y1, x1, y2, x2] corners) or 1 ([x_center, y_center, "
               "width, height])");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NMS_ATTRS_H_
