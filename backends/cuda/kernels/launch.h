#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_

// Launchers of the backend's own device code (elementwise.cu, pooling.cu,
// softmax.cu, batch_norm.cu, non_max_suppression.cu), callable from plain C++:
// device pointers, sizes and a stream in, the launch's cudaError_t out
// (cudaGetLastError after the launch, so a bad configuration is reported at
// once; faults inside a kernel surface at the next synchronization). Empty
// work launches nothing and succeeds.
//
//   cudaError_t e = LaunchSoftmax(x, y, outer, n, inner, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

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

// non_max_suppression (non_max_suppression.cu), the parallel bitmask form;
// the caller (non_max_suppression.cc) orders the candidates on the host.
// `order` holds each candidate's box as n * boxes_per_batch + b, all
// segments' candidates back to back; `decoded` has 5 * total doubles.
inline constexpr int64_t kMaxNmsMaskBlocks = 65535;  // a grid's y limit
inline constexpr int64_t kMaxNmsSegments = 2147483647;
// Decodes every candidate's box (ops/nms_geometry.h DecodeNmsBox).
cudaError_t LaunchNmsDecode(const float* boxes, const int64_t* order,
                            int64_t total, int64_t center_point_box,
                            double* decoded, cudaStream_t stream);
// The suppression bits of one segment, candidates [offset, offset + count)
// of `decoded`: mask[i * words + j / 64] bit j % 64 is set when candidate i
// suppresses candidate j > i (words = ceil(count / 64); only words at or
// after i / 64 are written). cudaErrorInvalidConfiguration when count needs
// more than kMaxNmsMaskBlocks blocks of 64.
cudaError_t LaunchNmsMask(const double* decoded, int64_t total, int64_t offset,
                          int64_t count, double iou_threshold, uint64_t* mask,
                          cudaStream_t stream);
// The greedy walk, one warp per segment: segments[4 s ...] = candidate
// offset, candidate count, mask offset, removed offset (in words; `removed`
// zeroed, ceil(count / 64) words per segment). Writes the kept box indices
// (b, not n * B + b) to kept[s * limit ...] and their number to counts[s].
cudaError_t LaunchNmsKeep(const uint64_t* mask, uint64_t* removed,
                          const int64_t* segments, const int64_t* order,
                          int64_t num_segments, int64_t boxes_per_batch,
                          int64_t limit, int64_t* kept, int64_t* counts,
                          cudaStream_t stream);
// The op's outputs: rows (batch, class, box) of every segment in order,
// then -1 rows up to `capacity`, and their number in *num_selected;
// `offsets` is scratch of num_segments values. Segment s is batch
// s / classes, class s % classes.
cudaError_t LaunchNmsPack(const int64_t* kept, const int64_t* counts,
                          int64_t num_segments, int64_t classes, int64_t limit,
                          int64_t capacity, int64_t* offsets, int64_t* rows,
                          int64_t* num_selected, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_LAUNCH_H_
