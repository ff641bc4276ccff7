#ifndef SWITCHYARD_OPS_ROI_ALIGN_ATTRS_H_
#define SWITCHYARD_OPS_ROI_ALIGN_ATTRS_H_

// The attributes of roi_align (ONNX RoiAlign, torchvision.ops.roi_align):
//
//   RoiAlignAttrs a;
//   a.output_height = a.output_width = 7;
//   a.sampling_ratio = 2;
//   a.spatial_scale = 0.25;        // a stride-4 feature map
//   a.aligned = false;             // torchvision's default (MultiScaleRoIAlign)
//   graph.AddNode("roi_align", "", {features, rois, batch_indices}, a.ToAttrMap());

#include <cstdint>

#include "absl/status/status.h"
#include "ops/attr_fields.h"
#include "ops/roi_align_geometry.h"

namespace switchyard {

enum class RoiPoolMode { kAvg, kMax };

// The largest sampling grid per bin side: ample for any real head, and it
// bounds a kernel's work per output element.
inline constexpr int64_t kMaxRoiSamplingRatio = 1 << 10;

struct RoiAlignAttrs {
  SY_ATTR_STRUCT(RoiAlignAttrs);
  static constexpr const char* kOp = "roi_align";
  int64_t output_height = 1;
  int64_t output_width = 1;
  int64_t sampling_ratio = 0;  // 0: ceil(roi size / output size) per bin
  double spatial_scale = 1.0;
  bool aligned = true;  // ONNX's half_pixel; false is output_half_pixel
  RoiPoolMode mode = RoiPoolMode::kAvg;

  static void DeclareFields(AttrFields<RoiAlignAttrs>& f) {
    f.Field("output_height", &RoiAlignAttrs::output_height)
        .InRange(1, kMaxAttrWindowValue)
        .Doc("bins per RoI along y");
    f.Field("output_width", &RoiAlignAttrs::output_width)
        .InRange(1, kMaxAttrWindowValue)
        .Doc("bins per RoI along x");
    f.Field("sampling_ratio", &RoiAlignAttrs::sampling_ratio)
        .InRange(0, kMaxRoiSamplingRatio)
        .Doc("samples per bin side; 0 takes ceil(bin size) of each RoI");
    f.Field("spatial_scale", &RoiAlignAttrs::spatial_scale)
        .Finite()
        .Doc("feature-map pixels per RoI coordinate unit (1 / the map's stride)");
    f.Field("aligned", &RoiAlignAttrs::aligned)
        .Doc("shift RoIs by -0.5 pixel (ONNX half_pixel); false keeps them and "
             "makes each RoI at least 1x1 (output_half_pixel)");
    f.Enum("mode", &RoiAlignAttrs::mode, {{RoiPoolMode::kAvg, "avg"}, {RoiPoolMode::kMax, "max"}})
        .Doc("how a bin's samples combine: their mean, or ONNX's max");
  }
};

// RoI `r` (its 4 floats and its batch index, of `num_images`) as every
// backend checks it before sampling: InvalidArgument naming the RoI for an
// index outside [0, num_images), a coordinate that is not finite, or an
// adaptive grid beyond kMaxRoiSamplingRatio; else its window in `w`.
absl::Status CheckRoi(const RoiAlignAttrs& a, const float* roi, int64_t batch_index,
                      int64_t num_images, int64_t r, RoiWindow* w);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ROI_ALIGN_ATTRS_H_
