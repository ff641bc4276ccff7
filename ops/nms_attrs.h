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
#include "core/op_def.h"

namespace switchyard {

// non_max_suppression, as ONNX NonMaxSuppression (opset 11+), whose three
// optional scalar inputs are attributes here: output shapes must be known
// when the graph is compiled, and they depend on max_output_boxes_per_class.
struct NonMaxSuppressionAttrs {
  // No score threshold: ONNX's absent score_threshold input.
  static constexpr double kNoScoreThreshold =
      -std::numeric_limits<double>::infinity();

  // "max_output_boxes_per_class", >= 0: at most this many boxes per (batch,
  // class). 0, ONNX's default, selects nothing (ONNX says so; ONNX Runtime
  // clamps a negative value to 0, this op refuses it).
  int64_t max_output_boxes_per_class = 0;
  // "iou_threshold", in [0, 1]: a box is suppressed when its IoU with a
  // selected box of the same (batch, class) is > this (strictly).
  double iou_threshold = 0.0;
  // "score_threshold": a box is a candidate only when score > this
  // (strictly). -inf, the default, means no threshold (ONNX's absent input):
  // every box whose score is not NaN is a candidate, -inf scores included.
  double score_threshold = kNoScoreThreshold;
  // "center_point_box", 0 or 1: 0 reads a box as [y1, x1, y2, x2], any two
  // diagonal corners (TensorFlow's layout); 1 as [x_center, y_center, width,
  // height] (PyTorch's).
  int64_t center_point_box = 0;

  bool has_score_threshold() const {
    return score_threshold != kNoScoreThreshold;
  }

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument for a wrong type, an unknown attribute, a negative
  // max_output_boxes_per_class, an iou_threshold outside [0, 1] or NaN, a
  // NaN or +inf score_threshold, or a center_point_box other than 0 or 1.
  static absl::StatusOr<NonMaxSuppressionAttrs> FromAttrMap(
      const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NMS_ATTRS_H_
