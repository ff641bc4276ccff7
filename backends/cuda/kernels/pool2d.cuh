#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_POOL2D_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_POOL2D_CUH_

// Launchers of pool2d.cu: max, average and adaptive average pooling over
// `planes` NCHW planes of h x w into ho x wo, one thread per output element,
// windows by ops/pool_geometry.h on the device as on the host. Plain C++ as
// every kernels/*.cuh: device pointers, parameters and a stream in, the
// launch's cudaError_t out; empty work launches nothing and succeeds.
//
//   MaxPool2dParams p = ...;  // pool2d.cc fills it from the attributes
//   cudaError_t e = LaunchMaxPool2d(x, y, p, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// The planes every pooling kernel walks.
struct Pool2dPlanes {
  int64_t planes = 0, h = 0, w = 0, ho = 0, wo = 0;
};

// Padded positions never win a max; NaN propagates.
struct MaxPool2dParams {
  Pool2dPlanes size;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
  int64_t dilation_h, dilation_w;
};
cudaError_t LaunchMaxPool2d(const float* in, float* out,
                            const MaxPool2dParams& params, cudaStream_t stream);

// Windows and divisors as ops/pool_geometry.h AvgPoolSpan (ONNX
// AveragePool).
struct AvgPool2dParams {
  Pool2dPlanes size;
  int64_t kernel_h, kernel_w, stride_h, stride_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  bool count_include_pad;
};
cudaError_t LaunchAvgPool2d(const float* in, float* out,
                            const AvgPool2dParams& params, cudaStream_t stream);

// Output (i, j) averages input rows [AdaptiveStart, AdaptiveEnd) of
// ops/pool_geometry.h, and the same for columns.
struct AdaptiveAvgPool2dParams {
  Pool2dPlanes size;
};
cudaError_t LaunchAdaptiveAvgPool2d(const float* in, float* out,
                                    const AdaptiveAvgPool2dParams& params,
                                    cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_POOL2D_CUH_
