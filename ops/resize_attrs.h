#ifndef SWITCHYARD_OPS_RESIZE_ATTRS_H_
#define SWITCHYARD_OPS_RESIZE_ATTRS_H_

// The attributes of resize as a typed struct: the one place that converts
// them to and from the attribute map, and whose defaults are the op
// schema's (ONNX Resize's). The op is in ops/resize.cc; the per-axis index
// math the kernels share is in ops/resize_geometry.h.
//
//   ResizeAttrs a;
//   a.sizes = {1, 3, 480, 640};
//   a.mode = ResizeMode::kLinear;   // scales empty: out / in per axis
//   graph.AddNode("resize", "up", {x}, a.ToAttrMap());

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/attributes.h"
#include "core/shape.h"
#include "ops/attr_fields.h"
#include "ops/resize_geometry.h"

namespace switchyard {

// resize, as ONNX Resize with its scales or sizes input resolved by the
// importer: every output dim is given (sizes), and the coordinate
// transform uses `scales` (ONNX uses the given scale, not out / in, when a
// model gives scales).
struct ResizeAttrs {
  SY_ATTR_STRUCT(ResizeAttrs);
  static constexpr const char* kOp = "resize";
  // Required: the output shape, one entry > 0 per input dim.
  std::vector<int64_t> sizes;
  // Empty: sizes[d] / input dim d. Else one finite value > 0 per dim.
  std::vector<double> scales;
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinateMode coordinate_transformation_mode =
      ResizeCoordinateMode::kHalfPixel;
  ResizeNearestMode nearest_mode = ResizeNearestMode::kRoundPreferFloor;
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;

  // Axis d of an input of shape `input` (rank and dims checked by the op).
  ResizeAxis Axis(const Shape& input, int d) const {
    ResizeAxis a;
    a.in = input.dim(d);
    a.out = sizes[d];
    a.scale = scales.empty() ? static_cast<double>(a.out) / static_cast<double>(a.in)
                             : scales[d];
    a.identity = a.in == a.out && a.scale == 1.0;
    a.mode = mode;
    a.coordinate = coordinate_transformation_mode;
    a.nearest = nearest_mode;
    a.cubic_a = cubic_coeff_a;
    a.exclude_outside = exclude_outside;
    return a;
  }

  static void DeclareFields(AttrFields<ResizeAttrs>& f) {
    f.Field("sizes", &ResizeAttrs::sizes)
        .Required()
        .CheckStatus([](const std::vector<int64_t>& v) {
          for (size_t d = 0; d < v.size(); ++d) {
            if (v[d] <= 0) {
              return absl::InvalidArgumentError(absl::StrCat(
                  "attribute 'sizes' must be > 0 in every dim, got ", v[d],
                  " at dim ", d));
            }
          }
          return absl::OkStatus();
        })
        .Doc("the output shape: one value > 0 per input dim");
    f.Field("scales", &ResizeAttrs::scales)
        .CheckStatus([](const std::vector<double>& v) {
          for (size_t d = 0; d < v.size(); ++d) {
            if (!(std::isfinite(v[d]) && v[d] > 0)) {
              return absl::InvalidArgumentError(absl::StrCat(
                  "attribute 'scales' must be finite and > 0 in every dim, "
                  "got ", v[d], " at dim ", d));
            }
          }
          return absl::OkStatus();
        })
        .Doc("empty (sizes / input dims) or one finite value > 0 per dim: "
             "the scale of the coordinate transform");
    f.Enum("mode", &ResizeAttrs::mode,
           {{ResizeMode::kNearest, "nearest"},
            {ResizeMode::kLinear, "linear"},
            {ResizeMode::kCubic, "cubic"}})
        .Doc("N-linear and N-cubic interpolate over the axes that change");
    f.Enum("coordinate_transformation_mode",
           &ResizeAttrs::coordinate_transformation_mode,
           {{ResizeCoordinateMode::kHalfPixel, "half_pixel"},
            {ResizeCoordinateMode::kPytorchHalfPixel, "pytorch_half_pixel"},
            {ResizeCoordinateMode::kAlignCorners, "align_corners"},
            {ResizeCoordinateMode::kAsymmetric, "asymmetric"},
            {ResizeCoordinateMode::kTfHalfPixelForNn, "tf_half_pixel_for_nn"},
            {ResizeCoordinateMode::kHalfPixelSymmetric,
             "half_pixel_symmetric"}})
        .Doc("how an output index maps to an input coordinate (ONNX's)");
    f.Enum("nearest_mode", &ResizeAttrs::nearest_mode,
           {{ResizeNearestMode::kRoundPreferFloor, "round_prefer_floor"},
            {ResizeNearestMode::kRoundPreferCeil, "round_prefer_ceil"},
            {ResizeNearestMode::kFloor, "floor"},
            {ResizeNearestMode::kCeil, "ceil"}})
        .Doc("nearest mode's rounding of the input coordinate");
    f.Field("cubic_coeff_a", &ResizeAttrs::cubic_coeff_a)
        .Finite()
        .Doc("cubic mode's kernel parameter (-0.75 as PyTorch, -0.5 as "
             "TensorFlow)");
    f.Field("exclude_outside", &ResizeAttrs::exclude_outside)
        .Doc("cubic mode: weights of elements outside the input are 0 and "
             "the rest renormalized");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_RESIZE_ATTRS_H_
