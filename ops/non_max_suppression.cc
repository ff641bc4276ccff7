// non_max_suppression: ONNX NonMaxSuppression (opset 11+) with a static
// output shape. For each batch n and class c, independently: the candidates
// are the boxes whose score is not NaN and > score_threshold (every non-NaN
// score when there is no threshold); visited by decreasing score, a
// candidate is selected unless its IoU with a box already selected for (n,
// c) is > iou_threshold; selection stops after max_output_boxes_per_class
// boxes.
//
//   operands:   boxes  [N, B, 4] float32; per center_point_box, [y1, x1, y2,
//                      x2] (any two diagonal corners) or [x_center,
//                      y_center, width, height]
//               scores [N, C, B] float32
//   attributes: max_output_boxes_per_class = 0, iou_threshold = 0,
//               score_threshold = -inf (none), center_point_box = 0
//               (ops/nms_attrs.h; ONNX's optional inputs as attributes,
//               since the output shape depends on the first)
//   outputs:    selected_indices int64 [N * C * M, 3], M = min(B,
//               max_output_boxes_per_class): rows (batch, class, box),
//               the selected ones first, in ONNX's order (batch, then class,
//               then the order of selection), then rows of -1 to the end
//               num_selected     int64 [1]: how many rows are selected
//
// ONNX gives selected_indices the data-dependent shape [num_selected, 3];
// the executor plans every buffer from shapes known at compile time, so this
// op returns the largest possible result padded with -1 rows plus the count
// (TensorFlow's padded NonMaxSuppressionV4 does the same). The first
// num_selected rows are ONNX's output. functional::NonMaxSuppression, Nms
// and BatchedNms (ops/functional.h) trim it on the host.
//
// Rules, which every backend follows exactly (integer output: the
// conformance suite compares bit for bit):
//   * Order: decreasing score; equal scores (-0 equals +0) by lower box
//     index first (torchvision's stable sort, ONNX Runtime's tie rule).
//   * NaN scores: never a candidate, so never selected and never suppress
//     anything. (torchvision sorts NaN first and keeps it; ONNX leaves it
//     undefined.) -inf is a score like any other when there is no
//     score_threshold.
//   * IoU: in double from the float32 coordinates, each step rounded once
//     (ops/nms_geometry.h NmsIou; ONNX Runtime and torchvision use float32,
//     so an IoU within ~1e-7 of the threshold may be decided differently
//     from them). Suppressed only when IoU > iou_threshold, so an IoU equal
//     to the threshold keeps the box (as ONNX Runtime and torchvision).
//   * Corners in any order (ONNX): [y1, x1, y2, x2] with y1 > y2 is the
//     same box as with them swapped. (torchvision instead never lets a box
//     with x1 > x2 or y1 > y2 overlap anything; functional::Nms follows
//     torchvision there.)
//   * A box with zero width or height, a NaN or infinite coordinate, or (in
//     center format) a negative width or height has IoU 0 with every box:
//     it is selected in its turn but suppresses nothing and is never
//     suppressed.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/nms_attrs.h"
#include "ops/nms_geometry.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

// Box indices are kept as 32-bit values by the kernels.
constexpr int64_t kMaxBoxes = (int64_t{1} << 31) - 1;
// IoU steps per pair: 4 min/max, 2 subtractions, 2 clamps, a product, two
// additions and a division, and the compare.
constexpr int64_t kFlopsPerPair = 13;

absl::StatusOr<std::vector<TensorType>> NonMaxSuppressionTypes(
    const NonMaxSuppressionAttrs& a, absl::Span<const TensorType> operands) {
  // The schema's operand names, for messages.
  constexpr const char* names[] = {"boxes", "scores"};
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].dtype != DType::kFloat32) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " is ", DTypeName(operands[i].dtype),
                       "; non_max_suppression takes float32 boxes and scores"));
    }
  }
  const Shape& boxes = operands[0].shape;
  const Shape& scores = operands[1].shape;
  SY_RETURN_IF_ERROR(
      ops_internal::CheckRank(boxes, "boxes", 3, "(batch, boxes, 4)"));
  SY_RETURN_IF_ERROR(
      ops_internal::CheckRank(scores, "scores", 3, "(batch, classes, boxes)"));
  if (boxes.dim(2) != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "boxes must be [batch, boxes, 4], got ", boxes.ToString()));
  }
  if (scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores must be [batch, classes, boxes] = [", boxes.dim(0),
                     ", classes, ", boxes.dim(1), "] for boxes ",
                     boxes.ToString(), ", got ", scores.ToString()));
  }
  if (boxes.dim(1) > kMaxBoxes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "at most ", kMaxBoxes, " boxes per batch, got ", boxes.dim(1)));
  }
  const int64_t per_class =
      NmsRowsPerClass(boxes.dim(1), a.max_output_boxes_per_class);
  const int64_t rows = ops_internal::SaturatingProduct(
      {scores.dim(0), scores.dim(1), per_class});
  if (rows == INT64_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "selected_indices would have ", scores.dim(0), " x ", scores.dim(1),
        " x ", per_class,
        " rows, more than int64 holds; lower max_output_boxes_per_class"));
  }
  return std::vector<TensorType>{{Shape({rows, 3}), DType::kInt64},
                                 {Shape({1}), DType::kInt64}};
}

// An upper bound: each selected box is compared with at most every other
// candidate of its (batch, class).
int64_t NonMaxSuppressionFlops(const AttrMap& attrs,
                               absl::Span<const Shape> operands,
                               const Shape& output) {
  if (operands.size() < 2 || operands[1].rank() != 3) return 0;
  const int64_t segments =
      ops_internal::SaturatingProduct({operands[1].dim(0), operands[1].dim(1)});
  const int64_t boxes = operands[1].dim(2);
  absl::StatusOr<NonMaxSuppressionAttrs> a =
      NonMaxSuppressionAttrs::FromAttrMap(attrs);
  const int64_t selected =
      a.ok() ? NmsRowsPerClass(boxes, a->max_output_boxes_per_class) : boxes;
  return ops_internal::SaturatingProduct(
      {segments, selected, boxes, kFlopsPerPair});
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"non_max_suppression", {{"boxes"}, {"scores"}}, {DType::kFloat32},
     {{"selected_indices"}, {"num_selected"}}},
    &NonMaxSuppressionTypes, &NonMaxSuppressionFlops));

}  // namespace
}  // namespace switchyard
