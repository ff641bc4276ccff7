// roi_align: a fixed-size feature patch per region of interest, as ONNX
// RoiAlign and torchvision.ops.roi_align (the RoI heads of Faster and Mask
// R-CNN; ops/roi_align_geometry.h has the sampling).
//   operands:   input (float32 [N, C, H, W]), rois (float32 [R, 4]: x1, y1,
//               x2, y2 in image units), batch_indices (int64 [R]: the image
//               of each RoI, in [0, N))
//   attributes: output_height = output_width = 1, sampling_ratio = 0 (per
//               RoI), spatial_scale = 1, aligned = true, mode = avg
//               (ops/roi_align_attrs.h)
//   output:     float32 [R, C, output_height, output_width]
// A batch index outside [0, N), a RoI coordinate that is not finite, or an
// adaptive grid of more than kMaxRoiSamplingRatio samples per bin side is
// the kernels' run-time InvalidArgument, naming the RoI.

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/roi_align_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> RoiAlignTypes(const RoiAlignAttrs& a,
                                                      absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckDType(operands[0].dtype, "input", "roi_align", {DType::kFloat32}));
  SY_RETURN_IF_ERROR(
      ops_internal::CheckDType(operands[1].dtype, "rois", "roi_align", {DType::kFloat32}));
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[2].dtype, "batch_indices", "roi_align",
                                              {DType::kInt64}));
  const Shape& x = operands[0].shape;
  const Shape& rois = operands[1].shape;
  const Shape& batch = operands[2].shape;
  if (x.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be rank 4 (N, C, H, W), got ", x.ToString()));
  }
  if (rois.rank() != 2 || rois.dim(1) != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rois must be [R, 4] (x1, y1, x2, y2), got ", rois.ToString()));
  }
  if (batch.rank() != 1 || batch.dim(0) != rois.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_indices must be [R] with R = ", rois.dim(0), " (one per RoI), got ",
        batch.ToString()));
  }
  if (rois.dim(0) > 0 && (x.dim(0) == 0 || x.dim(2) == 0 || x.dim(3) == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", x.ToString(), " has no pixels to sample for ", rois.dim(0), " RoIs"));
  }
  const int64_t elements = ops_internal::SaturatingProduct(
      {rois.dim(0), x.dim(1), a.output_height, a.output_width});
  if (elements == std::numeric_limits<int64_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the output of ", rois.dim(0), " RoIs of ", x.dim(1), " channels at ",
        a.output_height, "x", a.output_width, " is too large"));
  }
  return std::vector<TensorType>{
      {Shape({rois.dim(0), x.dim(1), a.output_height, a.output_width}), DType::kFloat32}};
}

// Per output element: each sample's four taps (a multiply-add each).
int64_t RoiAlignFlops(const AttrMap& attrs, absl::Span<const Shape>, const Shape& output) {
  const absl::StatusOr<int64_t> given = attrs.GetInt("sampling_ratio", 0);
  // An adaptive grid depends on each RoI: count a typical 2x2.
  const int64_t ratio = given.ok() && *given > 0 ? *given : 2;
  return ops_internal::SaturatingProduct({output.num_elements(), ratio, ratio, 8});
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"roi_align", {{"input"}, {"rois"}, {"batch_indices"}}, {DType::kFloat32}},
    &RoiAlignTypes, &RoiAlignFlops));

}  // namespace

absl::Status CheckRoi(const RoiAlignAttrs& a, const float* roi, int64_t batch_index,
                      int64_t num_images, int64_t r, RoiWindow* w) {
  if (batch_index < 0 || batch_index >= num_images) {
    return absl::InvalidArgumentError(absl::StrCat(
        "roi_align: batch_indices[", r, "] is ", batch_index, ", outside [0, ", num_images,
        ") (the input has ", num_images, " images)"));
  }
  if (!RoiWindowOf(roi, static_cast<float>(a.spatial_scale), a.aligned, a.output_height,
                   a.output_width, a.sampling_ratio, kMaxRoiSamplingRatio, w)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "roi_align: RoI ", r, " (", roi[0], ", ", roi[1], ", ", roi[2], ", ", roi[3],
        ") at spatial_scale ", a.spatial_scale,
        " has a coordinate that is not finite or needs more than ", kMaxRoiSamplingRatio,
        " samples per bin side; RoIs must lie near the image (clip the boxes first)"));
  }
  return absl::OkStatus();
}

}  // namespace switchyard
