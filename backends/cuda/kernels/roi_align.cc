// roi_align on CUDA (device code: roi_align.cu). The RoIs and their batch
// indices are copied to the host and checked first (ops/roi_align_attrs.h's
// CheckRoi, the CPU's messages): a bad RoI is an InvalidArgument before any
// sampling, at the cost of one small copy and a stream sync per run (RoI
// heads follow NMS, which synchronizes anyway).

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/roi_align.cuh"
#include "ops/roi_align_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class RoiAlignKernel : public Kernel {
 public:
  RoiAlignKernel(const RoiAlignAttrs& attrs, CudaDevice& device)
      : attrs_(attrs), device_(device) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const int64_t num_rois = inputs[1]->shape().dim(0);
    SY_RETURN_IF_ERROR(device_.Activate());
    std::vector<float> rois(static_cast<size_t>(num_rois) * 4);
    std::vector<int64_t> batch(static_cast<size_t>(num_rois));
    if (num_rois > 0) {
      SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(rois.data(), inputs[1]->data<float>(),
                                              rois.size() * sizeof(float),
                                              cudaMemcpyDeviceToHost, device_.stream()),
                              device_.name());
      SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(batch.data(), inputs[2]->data<int64_t>(),
                                              batch.size() * sizeof(int64_t),
                                              cudaMemcpyDeviceToHost, device_.stream()),
                              device_.name());
      SY_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(device_.stream()), device_.name());
    }
    for (int64_t r = 0; r < num_rois; ++r) {
      RoiWindow w;
      SY_RETURN_IF_ERROR(CheckRoi(attrs_, &rois[4 * r], batch[r], x.shape().dim(0), r, &w));
    }
    kernels::RoiAlignParams p;
    p.num_rois = num_rois;
    p.channels = x.shape().dim(1);
    p.height = x.shape().dim(2);
    p.width = x.shape().dim(3);
    p.output_height = attrs_.output_height;
    p.output_width = attrs_.output_width;
    p.sampling_ratio = attrs_.sampling_ratio;
    p.max_grid = kMaxRoiSamplingRatio;
    p.spatial_scale = static_cast<float>(attrs_.spatial_scale);
    p.aligned = attrs_.aligned;
    p.max_mode = attrs_.mode == RoiPoolMode::kMax;
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchRoiAlign(x.data<float>(), inputs[1]->data<float>(),
                                inputs[2]->data<int64_t>(), outputs[0]->data<float>(), p,
                                device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  RoiAlignAttrs attrs_;
  CudaDevice& device_;
};

SY_REGISTER_KERNEL(CudaKernels(), "roi_align", DType::kFloat32,
                   (&MakeKernelWithAttrs<RoiAlignKernel, RoiAlignAttrs, CudaDevice>));

}  // namespace
}  // namespace cuda
}  // namespace switchyard
