// roi_align from its definition, element by element in double: for output
// (r, c, ph, pw), the bin's sample points, each a bilinear interpolation of
// the four pixels around it (a point more than one pixel outside the map
// reads 0; one within a pixel of the edge is clamped onto it), averaged, or
// in max mode the largest weighted pixel of any sample. The RoIs are
// checked as every backend checks them (ops/roi_align_attrs.h's CheckRoi);
// the arithmetic is the oracle's own.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "backends/reference/kernels/movement.h"
#include "core/status_macros.h"
#include "ops/roi_align_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class RoiAlignKernel : public MovementKernel {
 public:
  RoiAlignKernel(const RoiAlignAttrs& attrs, const RefDevice& device)
      : MovementKernel(device, "roi_align", 3, 3, 1), a_(attrs) {}

 protected:
  absl::Status Move(absl::Span<const Tensor* const> inputs,
                    absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const float* rois = inputs[1]->data<float>();
    const int64_t* batch = inputs[2]->data<int64_t>();
    const int64_t images = x.shape().dim(0), channels = x.shape().dim(1);
    const int64_t height = x.shape().dim(2), width = x.shape().dim(3);
    const int64_t oh = a_.output_height, ow = a_.output_width;
    float* out = outputs[0]->data<float>();
    for (int64_t r = 0; r < inputs[1]->shape().dim(0); ++r) {
      RoiWindow unused;
      SY_RETURN_IF_ERROR(CheckRoi(a_, rois + 4 * r, batch[r], images, r, &unused));
      const double offset = a_.aligned ? 0.5 : 0.0;
      const double x1 = rois[4 * r] * a_.spatial_scale - offset;
      const double y1 = rois[4 * r + 1] * a_.spatial_scale - offset;
      double roi_w = rois[4 * r + 2] * a_.spatial_scale - offset - x1;
      double roi_h = rois[4 * r + 3] * a_.spatial_scale - offset - y1;
      if (!a_.aligned) {
        roi_w = std::max(roi_w, 1.0);
        roi_h = std::max(roi_h, 1.0);
      }
      const double bin_w = roi_w / ow, bin_h = roi_h / oh;
      const int64_t grid_w = a_.sampling_ratio > 0
                                 ? a_.sampling_ratio
                                 : std::max<int64_t>(0, static_cast<int64_t>(std::ceil(bin_w)));
      const int64_t grid_h = a_.sampling_ratio > 0
                                 ? a_.sampling_ratio
                                 : std::max<int64_t>(0, static_cast<int64_t>(std::ceil(bin_h)));
      for (int64_t c = 0; c < channels; ++c) {
        const float* plane = x.data<float>() + (batch[r] * channels + c) * height * width;
        auto pixel = [&](int64_t y, int64_t xx) { return double{plane[y * width + xx]}; };
        for (int64_t ph = 0; ph < oh; ++ph) {
          for (int64_t pw = 0; pw < ow; ++pw) {
            double sum = 0, best = 0;
            bool any = false;
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              double y = y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h;
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                double xx = x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w;
                if (y < -1.0 || y > height || xx < -1.0 || xx > width) {
                  best = any ? std::max(best, 0.0) : 0.0;
                  any = true;
                  continue;
                }
                const double yc = std::min<double>(std::max(y, 0.0), height - 1);
                const double xc = std::min<double>(std::max(xx, 0.0), width - 1);
                const int64_t y0 = static_cast<int64_t>(std::floor(yc));
                const int64_t x0 = static_cast<int64_t>(std::floor(xc));
                const int64_t y1i = std::min(y0 + 1, height - 1);
                const int64_t x1i = std::min(x0 + 1, width - 1);
                const double ly = yc - y0, lx = xc - x0;
                const double taps[4] = {(1 - ly) * (1 - lx) * pixel(y0, x0),
                                        (1 - ly) * lx * pixel(y0, x1i),
                                        ly * (1 - lx) * pixel(y1i, x0), ly * lx * pixel(y1i, x1i)};
                for (double t : taps) {
                  best = any ? std::max(best, t) : t;
                  any = true;
                  sum += t;
                }
              }
            }
            const int64_t count = std::max<int64_t>(grid_h * grid_w, 1);
            out[((r * channels + c) * oh + ph) * ow + pw] = static_cast<float>(
                a_.mode == RoiPoolMode::kMax ? best : sum / static_cast<double>(count));
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  RoiAlignAttrs a_;
};

SY_REGISTER_KERNEL(RefKernels(), "roi_align", DType::kFloat32,
                   (&MakeKernelWithAttrs<RoiAlignKernel, RoiAlignAttrs, RefDevice>));

}  // namespace
}  // namespace reference
}  // namespace switchyard
