#ifndef SWITCHYARD_OPS_NMS_GEOMETRY_H_
#define SWITCHYARD_OPS_NMS_GEOMETRY_H_

// What the optimized non_max_suppression kernels (cpu, cuda) share: how a
// box is read, the order in which candidates are visited, and the number of
// output rows, exactly as ops/non_max_suppression.cc states them. The
// reference backend writes its own plain version of each, so that it stays
// an independent oracle.
//
//   NmsBox b = DecodeNmsBox(boxes + 4 * i, attrs.center_point_box);
//   std::vector<int64_t> order;
//   NmsCandidateOrder(scores_of_class, num_boxes, attrs, &order);

#include <cstdint>
#include <vector>

#include "ops/nms_attrs.h"

namespace switchyard {

// One box as non_max_suppression reads it, in double (every float32
// coordinate, their differences and products are exact or rounded once).
// The first axis is ONNX's y and the second its x; IoU does not care which
// is which, so torchvision's (x1, y1, x2, y2) may be passed as they are.
struct NmsBox {
  double min0 = 0, min1 = 0, max0 = 0, max1 = 0;
  // (max0 - min0) * (max1 - min1), one rounded product; 0 when !valid.
  double area = 0;
  // Whether the box can overlap anything: max0 > min0, max1 > min1 and a
  // finite area. An invalid box (zero width or height, a NaN or infinite
  // coordinate, a negative width or height in center format) has IoU 0 with
  // every box: it never suppresses another box and is never suppressed. Its
  // coordinates here are all 0.
  bool valid = false;
};

// Box `box[0..3]` per center_point_box: 0, two diagonal corners in any
// order ([y1, x1, y2, x2] with y1 > y2 or x1 > x2 allowed, as ONNX says);
// 1, [x_center, y_center, width, height], corners center -/+ size / 2 (a
// negative size makes the box invalid, as in ONNX Runtime).
NmsBox DecodeNmsBox(const float* box, int64_t center_point_box);

// Output rows per (batch, class): min(num_boxes, max_output_boxes_per_class).
int64_t NmsRowsPerClass(int64_t num_boxes, int64_t max_output_boxes_per_class);

// The candidates of one (batch, class) in the order they are visited, as
// box indices in [0, count): boxes whose score is not NaN and, when
// attrs.has_score_threshold(), is > score_threshold; by decreasing score,
// and among equal scores (-0 equals +0) the lower index first (the order of
// torchvision's stable sort and of ONNX Runtime's priority queue). `order`
// is overwritten. count < 2^32.
void NmsCandidateOrder(const float* scores, int64_t count,
                       const NonMaxSuppressionAttrs& attrs,
                       std::vector<int64_t>* order);

// The IoU of two valid boxes, as every kernel computes it: intersection
// w * h with w = max(0, min(max) - max(min)) per axis; union = (area_a +
// area_b) - intersection; IoU = intersection / union, each step one rounded
// double operation (no fused multiply-add). For tests and scalar code; the
// kernels vectorize the same steps.
double NmsIou(const NmsBox& a, const NmsBox& b);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NMS_GEOMETRY_H_
