#ifndef SWITCHYARD_OPS_NMS_BOX_GEOMETRY_H_
#define SWITCHYARD_OPS_NMS_BOX_GEOMETRY_H_

// How non_max_suppression reads a box and measures the overlap of two,
// shared by the cpu kernel and the CUDA device code
// (backends/cuda/kernels/non_max_suppression.cu), so that every decision is
// the same on both. Inline SY_HOST_DEVICE and free of absl, std::vector and
// Status: nvcc compiles this header. (ops/nms_geometry.h has the rest of
// the op's shared arithmetic; the reference backend writes its own.)
//
//   NmsBox a = DecodeNmsBox(boxes + 4 * i, /*center_point_box=*/0);
//   if (NmsSuppresses(a, DecodeNmsBox(boxes + 4 * j, 0), 0.5)) ...
//
// Every step is one double operation rounded once, never a fused
// multiply-add: on the device through the _rn intrinsics (which nvcc never
// fuses), on the host by storing the one product that feeds a subtraction.

#include <cmath>
#include <cstdint>

#include "ops/host_device.h"

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

namespace nms_internal {

// std::min and std::max (the first argument on ties and NaN).
SY_HOST_DEVICE inline double Min(double a, double b) { return b < a ? b : a; }
SY_HOST_DEVICE inline double Max(double a, double b) { return a < b ? b : a; }

SY_HOST_DEVICE inline double Add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SY_HOST_DEVICE inline double Sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
SY_HOST_DEVICE inline double Div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
// A product that no compiler fuses into what follows. On the host it is
// stored and reloaded: GCC contracts a + b - c * d into one FMA even across
// statements.
SY_HOST_DEVICE inline double Mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double stored = a * b;
  return stored;
#endif
}
SY_HOST_DEVICE inline bool IsFinite(double x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

}  // namespace nms_internal

// Box `box[0..3]` per center_point_box: 0, two diagonal corners in any
// order ([y1, x1, y2, x2] with y1 > y2 or x1 > x2 allowed, as ONNX says);
// 1, [x_center, y_center, width, height], corners center -/+ size / 2 (a
// negative size makes the box invalid, as in ONNX Runtime).
SY_HOST_DEVICE inline NmsBox DecodeNmsBox(const float* box,
                                          int64_t center_point_box) {
  namespace n = nms_internal;
  NmsBox b;
  const double v0 = box[0], v1 = box[1], v2 = box[2], v3 = box[3];
  if (center_point_box == 0) {
    // Two diagonal corners: [y1, x1, y2, x2] in any order.
    b.min0 = n::Min(v0, v2);
    b.max0 = n::Max(v0, v2);
    b.min1 = n::Min(v1, v3);
    b.max1 = n::Max(v1, v3);
  } else {
    // [x_center, y_center, width, height]; halving is exact in double.
    b.min0 = n::Sub(v1, n::Div(v3, 2));
    b.max0 = n::Add(v1, n::Div(v3, 2));
    b.min1 = n::Sub(v0, n::Div(v2, 2));
    b.max1 = n::Add(v0, n::Div(v2, 2));
  }
  const double extent0 = n::Sub(b.max0, b.min0);
  const double extent1 = n::Sub(b.max1, b.min1);
  b.area = n::Mul(extent0, extent1);
  b.valid = extent0 > 0 && extent1 > 0 && n::IsFinite(b.area);  // NaN: false
  if (!b.valid) b = NmsBox();
  return b;
}

// The IoU of two valid boxes, as every kernel computes it: intersection
// w * h with w = max(0, min(max) - max(min)) per axis; union = (area_a +
// area_b) - intersection; IoU = intersection / union. The cpu kernel
// vectorizes the same steps.
SY_HOST_DEVICE inline double NmsIou(const NmsBox& a, const NmsBox& b) {
  namespace n = nms_internal;
  const double w =
      n::Max(0.0, n::Sub(n::Min(a.max0, b.max0), n::Max(a.min0, b.min0)));
  const double h =
      n::Max(0.0, n::Sub(n::Min(a.max1, b.max1), n::Max(a.min1, b.min1)));
  const double intersection = n::Mul(w, h);
  return n::Div(intersection, n::Sub(n::Add(a.area, b.area), intersection));
}

// Whether `kept` suppresses `candidate`: both valid and IoU > threshold.
SY_HOST_DEVICE inline bool NmsSuppresses(const NmsBox& kept,
                                         const NmsBox& candidate,
                                         double iou_threshold) {
  return kept.valid && candidate.valid &&
         NmsIou(kept, candidate) > iou_threshold;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NMS_BOX_GEOMETRY_H_
