#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_

// Launchers of the backend's own device code (elementwise.cu, pooling.cu,
// softmax.cu, batch_norm.cu), callable from plain C++: device pointers, sizes and a
// stream in, the launch's cudaError_t out (cudaGetLastError after the launch, so a bad
// configuration is reported at once; faults inside a kernel surface at the next
// synchronization). Empty work launches nothing and succeeds.
//
//   cudaError_t e = LaunchRelu(x, y, n, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out = max(in, 0), NaN kept (as PyTorch).
cudaError_t LaunchRelu(const float* in, float* out, int64_t n,
                       cudaStream_t stream);

// out = a + b, elementwise.
cudaError_t LaunchAdd(const float* a, const float* b, float* out, int64_t n,
                      cudaStream_t stream);

// out[r, c] = bias[c] (0 when bias is null) for a [rows, cols] output: a
// Linear with zero input features.
cudaError_t LaunchFillRows(const float* bias, float* out, int64_t rows,
                           int64_t cols, cudaStream_t stream);

// out[i] = max(out[i] + bias[c], 0) in place, NaN kept, where c is the
// channel of element i of an NCHW-like [batch, channels, inner] tensor
// (bias null: no addition). The epilogue of conv2d+relu when cuDNN's fused
// call is not available.
cudaError_t LaunchBiasReluInPlace(float* out, const float* bias, int64_t batch,
                                  int64_t channels, int64_t inner, cudaStream_t stream);

// BatchNorm at inference in two launches: per channel (in double, rounded
// once) scale = weight / sqrt(var + epsilon) and shift = bias - mean * scale
// into `scale_shift` (2 * channels floats), then out = in * scale[c] +
// shift[c] (one fused multiply-add) over [batch, channels, inner].
cudaError_t LaunchBatchNorm(const float* in, const float* weight, const float* bias,
                            const float* mean, const float* var, double epsilon,
                            float* scale_shift, float* out, int64_t batch,
                            int64_t channels, int64_t inner, cudaStream_t stream);

// Max pooling over `planes` NCHW planes of h x w into ho x wo; windows follow
// ops/pool_geometry.h (padding never wins, NaN propagates).
struct MaxPool2dParams {
  int64_t planes, h, w, ho, wo;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
  int64_t dilation_h, dilation_w;
};
cudaError_t LaunchMaxPool2d(const float* in, float* out,
                            const MaxPool2dParams& params, cudaStream_t stream);

// Adaptive average pooling: output (i, j) averages input rows
// [floor(i*h/ho), ceil((i+1)*h/ho)) and the same for columns.
cudaError_t LaunchAdaptiveAvgPool2d(const float* in, float* out,
                                    int64_t planes, int64_t h, int64_t w,
                                    int64_t ho, int64_t wo,
                                    cudaStream_t stream);

// Softmax over the middle dimension of an [outer, n, inner] view.
cudaError_t LaunchSoftmax(const float* in, float* out, int64_t outer,
                          int64_t n, int64_t inner, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
