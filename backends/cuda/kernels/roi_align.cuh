#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_ROI_ALIGN_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_ROI_ALIGN_CUH_

// The launcher of roi_align's device code (roi_align.cu), callable from
// plain C++: device pointers, sizes, the attributes and a stream in, the
// launch's cudaError_t out; empty work launches nothing. The RoIs must have
// passed CheckRoi (ops/roi_align_attrs.h) on the host: the device code
// samples every window RoiWindowOf accepts and writes zeros for any other.

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

struct RoiAlignParams {
  int64_t num_rois = 0, channels = 0, height = 0, width = 0;
  int64_t output_height = 1, output_width = 1, sampling_ratio = 0, max_grid = 1;
  float spatial_scale = 1.0f;
  bool aligned = true, max_mode = false;
};

cudaError_t LaunchRoiAlign(const float* input, const float* rois, const int64_t* batch_indices,
                           float* out, const RoiAlignParams& params, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_ROI_ALIGN_CUH_
