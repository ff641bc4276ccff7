#ifndef SWITCHYARD_OPS_NMS_GEOMETRY_H_
#define SWITCHYARD_OPS_NMS_GEOMETRY_H_

// What the optimized non_max_suppression kernels (cpu, cuda) share: how a
// box is read and two compared (ops/nms_box_geometry.h, also device code),
// the order in which candidates are visited, and the number of output rows,
// exactly as ops/non_max_suppression.cc states them. The
// reference backend writes its own plain version of each, so that it stays
// an independent oracle.
//
//   NmsBox b = DecodeNmsBox(boxes + 4 * i, attrs.center_point_box);
//   std::vector<int64_t> order;
//   NmsCandidateOrder(scores_of_class, num_boxes, attrs, &order);

#include <cstdint>
#include <vector>

#include "ops/nms_attrs.h"
#include "ops/nms_box_geometry.h"

namespace switchyard {

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

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NMS_GEOMETRY_H_
