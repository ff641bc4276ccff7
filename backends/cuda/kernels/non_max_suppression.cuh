#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_NON_MAX_SUPPRESSION_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_NON_MAX_SUPPRESSION_CUH_

// Launchers of non_max_suppression.cu, in the order the host calls them:
// decode, mask per segment, keep, pack. Plain C++ as every kernels/*.cuh:
// device pointers, sizes and a stream in, the launch's cudaError_t out;
// empty work launches nothing and succeeds.
//
//   cudaError_t e = LaunchNmsDecode(boxes, order, total, 0, decoded, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// The parallel bitmask form; the caller (non_max_suppression.cc) orders
// the candidates on the host.
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

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_NON_MAX_SUPPRESSION_CUH_
