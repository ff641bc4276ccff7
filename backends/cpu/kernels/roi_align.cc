// roi_align: every RoI checked first (ops/roi_align_attrs.h's CheckRoi),
// then each (RoI, channel) plane of the output filled, the planes split
// across the context's threads.
//
// Where a RoI samples does not depend on the channel, so the bilinear taps
// of all its samples (ops/roi_align_geometry.h's SampleCoordinate and
// BilinearTaps, in RoiAlignBin's order) are computed once per RoI and
// reused for each of its channels: a channel then costs four loads and
// multiply-adds per sample. The sums run in RoiAlignBin's order, so the
// values are the same bits as the CUDA kernel's. A RoI with more samples
// than kMaxTabledSamples (an adaptive grid over a huge RoI) calls
// RoiAlignBin per element instead, with no table.

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/roi_align_attrs.h"
#include "ops/roi_align_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// 64 Ki samples: 3 MiB of taps per thread (7x7 bins of 2x2 samples are 196).
constexpr int64_t kMaxTabledSamples = int64_t{1} << 16;

// One RoI's samples, bin by bin (row-major), each bin's grid row-major.
struct RoiTaps {
  std::vector<int64_t> offset;  // 4 per sample
  std::vector<float> weight;    // 4 per sample
  std::vector<bool> inside;     // false: the sample counts as 0

  void Compute(const RoiWindow& w, int64_t bins_h, int64_t bins_w, int64_t height,
               int64_t width) {
    const int64_t samples = bins_h * bins_w * w.grid_h * w.grid_w;
    offset.resize(4 * samples);
    weight.resize(4 * samples);
    inside.resize(samples);
    int64_t s = 0;
    for (int64_t ph = 0; ph < bins_h; ++ph) {
      for (int64_t pw = 0; pw < bins_w; ++pw) {
        for (int64_t iy = 0; iy < w.grid_h; ++iy) {
          const float y = SampleCoordinate(w.y1, w.bin_h, w.grid_h, ph, iy);
          for (int64_t ix = 0; ix < w.grid_w; ++ix, ++s) {
            const float x = SampleCoordinate(w.x1, w.bin_w, w.grid_w, pw, ix);
            inside[s] = BilinearTaps(y, x, height, width, &offset[4 * s], &weight[4 * s]);
          }
        }
      }
    }
  }

  // Bin `bin`'s value over `plane`: RoiAlignBin's average or max.
  float Bin(const float* plane, int64_t bin, int64_t per_bin, bool max_mode) const {
    float sum = 0.0f, best = 0.0f;
    bool any = false;
    for (int64_t s = bin * per_bin; s < (bin + 1) * per_bin; ++s) {
      const int64_t* o = &offset[4 * s];
      const float* k = &weight[4 * s];
      if (!inside[s]) {
        if (max_mode && (!any || best < 0.0f)) best = 0.0f;
        any = true;
        continue;
      }
      if (max_mode) {
        for (int t = 0; t < 4; ++t) {
          const float v = k[t] * plane[o[t]];
          if (!any || v > best) best = v;
          any = true;
        }
      } else {
        sum += k[0] * plane[o[0]] + k[1] * plane[o[1]] + k[2] * plane[o[2]] +
               k[3] * plane[o[3]];
      }
    }
    if (max_mode) return best;
    return sum / static_cast<float>(per_bin > 0 ? per_bin : 1);
  }
};

class RoiAlignKernel : public Kernel {
 public:
  RoiAlignKernel(const RoiAlignAttrs& attrs, const CpuDevice& device)
      : attrs_(attrs), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const float* rois = inputs[1]->data<float>();
    const int64_t* batch = inputs[2]->data<int64_t>();
    const int64_t num_rois = inputs[1]->shape().dim(0);
    const int64_t images = x.shape().dim(0), channels = x.shape().dim(1);
    const int64_t height = x.shape().dim(2), width = x.shape().dim(3);
    std::vector<RoiWindow> windows(static_cast<size_t>(num_rois));
    for (int64_t r = 0; r < num_rois; ++r) {
      SY_RETURN_IF_ERROR(CheckRoi(attrs_, rois + 4 * r, batch[r], images, r, &windows[r]));
    }
    const float* in = x.data<float>();
    float* out = outputs[0]->data<float>();
    const int64_t oh = attrs_.output_height, ow = attrs_.output_width;
    const bool max_mode = attrs_.mode == RoiPoolMode::kMax;
    context_->ParallelRange(num_rois * channels, [&](int64_t begin, int64_t end) {
      RoiTaps taps;
      int64_t tabled_roi = -1;
      for (int64_t p = begin; p < end; ++p) {
        const int64_t r = p / channels, c = p % channels;
        const RoiWindow& w = windows[r];
        const float* plane = in + (batch[r] * channels + c) * height * width;
        float* o = out + p * oh * ow;
        const int64_t per_bin = w.grid_h * w.grid_w;
        if (oh * ow * per_bin > kMaxTabledSamples) {
          for (int64_t ph = 0; ph < oh; ++ph) {
            for (int64_t pw = 0; pw < ow; ++pw) {
              o[ph * ow + pw] = RoiAlignBin(plane, height, width, w, ph, pw, max_mode);
            }
          }
          continue;
        }
        if (r != tabled_roi) {
          taps.Compute(w, oh, ow, height, width);
          tabled_roi = r;
        }
        for (int64_t bin = 0; bin < oh * ow; ++bin) {
          o[bin] = taps.Bin(plane, bin, per_bin, max_mode);
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  RoiAlignAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "roi_align", DType::kFloat32,
                   (&MakeKernelWithAttrs<RoiAlignKernel, RoiAlignAttrs, CpuDevice>));

}  // namespace
}  // namespace cpu
}  // namespace switchyard
