#ifndef SWITCHYARD_OPS_ROI_ALIGN_GEOMETRY_H_
#define SWITCHYARD_OPS_ROI_ALIGN_GEOMETRY_H_

// Where roi_align samples, shared by the cpu kernel and the CUDA device
// code so both read the same elements in the same order (the reference
// backend keeps formulas of its own). A RoI (x1, y1, x2, y2 in image units)
// scaled to the feature map is split into output_height x output_width
// bins; each bin averages (or, in max mode, takes ONNX's max over) a grid
// of bilinear samples, as torchvision's roi_align and ONNX RoiAlign define
// it. Float arithmetic throughout, as torchvision's CPU kernel. Inline
// SY_HOST_DEVICE and free of absl, std::vector and Status: nvcc compiles
// this header.
//
//   RoiWindow w;
//   if (!RoiWindowOf(roi, 0.25f, false, 7, 7, 2, &w)) ...;  // a bad RoI
//   float y = SampleCoordinate(w.y1, w.bin_h, w.grid_h, ph, iy);

#include <cmath>
#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {

// One RoI on the feature map: its corner, bin size and samples per bin.
struct RoiWindow {
  float x1 = 0, y1 = 0;
  float bin_w = 0, bin_h = 0;
  int64_t grid_w = 1, grid_h = 1;
};

// The window of `roi` (4 floats). False for a RoI no kernel should sample:
// a coordinate that is not finite, or an adaptive grid (sampling_ratio 0)
// of more than `max_grid` samples per bin side (a RoI far larger than any
// feature map).
SY_HOST_DEVICE inline bool RoiWindowOf(const float* roi, float spatial_scale, bool aligned,
                                       int64_t output_height, int64_t output_width,
                                       int64_t sampling_ratio, int64_t max_grid,
                                       RoiWindow* w) {
  const float offset = aligned ? 0.5f : 0.0f;
  const float x1 = roi[0] * spatial_scale - offset;
  const float y1 = roi[1] * spatial_scale - offset;
  const float x2 = roi[2] * spatial_scale - offset;
  const float y2 = roi[3] * spatial_scale - offset;
  if (!(std::isfinite(x1) && std::isfinite(y1) && std::isfinite(x2) && std::isfinite(y2))) {
    return false;
  }
  float roi_w = x2 - x1, roi_h = y2 - y1;
  if (!aligned) {  // ONNX output_half_pixel: each RoI at least one pixel
    roi_w = roi_w > 1.0f ? roi_w : 1.0f;
    roi_h = roi_h > 1.0f ? roi_h : 1.0f;
  }
  w->x1 = x1;
  w->y1 = y1;
  w->bin_w = roi_w / static_cast<float>(output_width);
  w->bin_h = roi_h / static_cast<float>(output_height);
  if (sampling_ratio > 0) {
    w->grid_w = w->grid_h = sampling_ratio;
    return true;
  }
  const float gw = std::ceil(w->bin_w), gh = std::ceil(w->bin_h);
  if (!(gw <= static_cast<float>(max_grid) && gh <= static_cast<float>(max_grid))) return false;
  // A reversed RoI (x2 < x1, aligned) has no samples; it still averages
  // over a count of 1, as torchvision.
  w->grid_w = gw > 0 ? static_cast<int64_t>(gw) : 0;
  w->grid_h = gh > 0 ? static_cast<int64_t>(gh) : 0;
  return true;
}

// Sample `i` of bin `bin` along one axis.
SY_HOST_DEVICE inline float SampleCoordinate(float start, float bin_size, int64_t grid,
                                             int64_t bin, int64_t i) {
  return start + static_cast<float>(bin) * bin_size +
         (static_cast<float>(i) + 0.5f) * bin_size / static_cast<float>(grid);
}

// The four taps of a bilinear sample at (y, x) of a height x width plane:
// row-major offsets and weights. False (no taps, the sample counts as 0)
// more than one pixel outside the plane, as torchvision.
SY_HOST_DEVICE inline bool BilinearTaps(float y, float x, int64_t height, int64_t width,
                                        int64_t offset[4], float weight[4]) {
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f ||
      x > static_cast<float>(width)) {
    return false;
  }
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  offset[0] = y_low * width + x_low;
  offset[1] = y_low * width + x_high;
  offset[2] = y_high * width + x_low;
  offset[3] = y_high * width + x_high;
  weight[0] = hy * hx;
  weight[1] = hy * lx;
  weight[2] = ly * hx;
  weight[3] = ly * lx;
  return true;
}

// One output element: bin (ph, pw) of `w` over `plane` (height x width).
// Average: the samples' mean over grid_h * grid_w (at least 1). Max: ONNX
// Runtime's rule, the largest weighted tap of any sample (0 when none).
SY_HOST_DEVICE inline float RoiAlignBin(const float* plane, int64_t height, int64_t width,
                                        const RoiWindow& w, int64_t ph, int64_t pw,
                                        bool max_mode) {
  float sum = 0.0f, best = 0.0f;
  bool any = false;
  for (int64_t iy = 0; iy < w.grid_h; ++iy) {
    const float y = SampleCoordinate(w.y1, w.bin_h, w.grid_h, ph, iy);
    for (int64_t ix = 0; ix < w.grid_w; ++ix) {
      const float x = SampleCoordinate(w.x1, w.bin_w, w.grid_w, pw, ix);
      int64_t offset[4];
      float weight[4];
      if (!BilinearTaps(y, x, height, width, offset, weight)) {
        if (max_mode && (!any || best < 0.0f)) best = 0.0f;  // a sample of value 0
        any = true;
        continue;
      }
      if (max_mode) {
        for (int k = 0; k < 4; ++k) {
          const float v = weight[k] * plane[offset[k]];
          if (!any || v > best) best = v;
          any = true;
        }
      } else {
        sum += weight[0] * plane[offset[0]] + weight[1] * plane[offset[1]] +
               weight[2] * plane[offset[2]] + weight[3] * plane[offset[3]];
      }
    }
  }
  if (max_mode) return best;
  const int64_t count = w.grid_h * w.grid_w;
  return sum / static_cast<float>(count > 0 ? count : 1);
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ROI_ALIGN_GEOMETRY_H_
