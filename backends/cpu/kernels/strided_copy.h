#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_

// The data-movement engine of the shape ops on the CPU (transpose, slice,
// expand, concat, split): a copy between two strided views of equal
// extent. Dtype-agnostic: it moves elements of 1, 2, 4 or 8 bytes.
//
//   // transpose [2, 3] -> [3, 2]: out[i][j] = in[j][i]
//   StridedCopy copy{/*dims=*/{3, 2}, /*dst=*/{2, 1}, /*src=*/{1, 3}};
//   RunStridedCopy(context, out_bytes, in_bytes, /*element_size=*/4, copy);
//
// Before copying, dims of size 1 are dropped and neighbours that both views
// walk as one are merged, so most copies become a few long runs:
//   * contiguous innermost runs on both sides: one memcpy per run;
//   * a transpose (the destination's innermost dim strided in the source,
//     another dim contiguous there): 32 x 32 element tiles, so both sides
//     stay in cache;
//   * anything else (broadcast, reversed steps): an element loop.
// Large copies are split over the context's threads by outer rows.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/cpu/cpu_context.h"

namespace switchyard {
namespace cpu {

// dst[sum(i[d] * dst_strides[d])] = src[sum(i[d] * src_strides[d])] for
// every index i within `dims`. Strides are in elements and may be 0
// (broadcast) or negative (a reversed slice); the pointers given to
// RunStridedCopy are those of index 0.
struct StridedCopy {
  std::vector<int64_t> dims;
  std::vector<int64_t> dst_strides;
  std::vector<int64_t> src_strides;
};

// Row-major strides of `dims` in elements.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims);

// The copy with size-1 dims dropped and mergeable neighbours merged (a
// scalar copy keeps one dim of 1).
StridedCopy Coalesce(const StridedCopy& copy);

// Runs `copy` (element_size 1, 2, 4 or 8); nothing for an empty extent.
void RunStridedCopy(const CpuContext& context, void* dst, const void* src,
                    size_t element_size, const StridedCopy& copy);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_STRIDED_COPY_H_
