// roi_align: every RoI checked first (ops/roi_align_attrs.h's CheckRoi),
// then each (RoI, channel) plane of the output filled by
// ops/roi_align_geometry.h's RoiAlignBin, the planes split across the
// context's threads.

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
      for (int64_t p = begin; p < end; ++p) {
        const int64_t r = p / channels, c = p % channels;
        const float* plane = in + (batch[r] * channels + c) * height * width;
        float* o = out + p * oh * ow;
        for (int64_t ph = 0; ph < oh; ++ph) {
          for (int64_t pw = 0; pw < ow; ++pw) {
            o[ph * ow + pw] = RoiAlignBin(plane, height, width, windows[r], ph, pw, max_mode);
          }
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
