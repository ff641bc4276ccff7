#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_LAUNCH_H_

// Launchers of the shape ops' device code (shape_ops.cu), callable from
// plain C++: device pointers, geometry and a stream in, the launch's
// cudaError_t out (as launch.h's). Every one moves elements of 1, 2, 4 or 8
// bytes without reading them, so one launcher serves every dtype. Views of
// more than kMaxShapeRank dims (after merging, shape_copy.h) are the
// caller's to refuse. Empty work launches nothing and succeeds.
//
//   StridedCopyParams p;  // from MakeStridedCopy (shape_copy.h)
//   cudaError_t e = LaunchStridedCopy(out, in, 4, p, stream);

#include <cstddef>
#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

inline constexpr int kMaxShapeRank = 8;

// dst[sum(i[d] * dst_strides[d])] = src[sum(i[d] * src_strides[d])] for i
// within dims (strides in elements; 0 broadcasts, negative walks back):
// transpose, slice, expand, and each operand of concat and split. One
// thread per element, in the destination's order.
struct StridedCopyParams {
  int rank = 0;
  int64_t dims[kMaxShapeRank] = {};
  int64_t dst_strides[kMaxShapeRank] = {};
  int64_t src_strides[kMaxShapeRank] = {};
};
cudaError_t LaunchStridedCopy(void* dst, const void* src, size_t element_size,
                              const StridedCopyParams& params,
                              cudaStream_t stream);

// pad: output element o copies the input element whose index along each
// dim d is PadSourceIndex(mode, o_d, begins[d], in_dims[d])
// (ops/shape_geometry.h), or `fill` (the element's bytes, low bytes first)
// where that is -1. mode: 0 constant, 1 reflect, 2 edge (PadMode's order).
struct PadParams {
  int rank = 0;
  int mode = 0;
  int64_t out_dims[kMaxShapeRank] = {};
  int64_t in_dims[kMaxShapeRank] = {};
  int64_t begins[kMaxShapeRank] = {};
  uint64_t fill = 0;
};
cudaError_t LaunchPad(void* dst, const void* src, size_t element_size,
                      const PadParams& params, cudaStream_t stream);

// gather over data [outer, n, inner] with `count` indices (int64, or int32
// when !indices_int64): out[o, k, :] = data[o, wrap(indices[k]), :]. An
// index outside [-n, n) is never read through: its output is zeroed and
// atomicMin lowers *bad_position (which the caller sets to UINT64_MAX
// before) to its position k, for the host to report after the kernel
// (bad_position may be null when the host checked the indices already).
cudaError_t LaunchGather(void* dst, const void* data, const void* indices,
                         bool indices_int64, int64_t outer, int64_t n,
                         int64_t count, int64_t inner, size_t element_size,
                         unsigned long long* bad_position, cudaStream_t stream);

// where over a broadcast view of `rank` merged dims: out[i] = condition[c]
// != 0 ? x[a] : y[b], each offset the index times that operand's strides
// (0 where broadcast; ops/broadcast.h BroadcastLayout).
struct WhereParams {
  int rank = 0;
  int64_t dims[kMaxShapeRank] = {};
  int64_t strides[3][kMaxShapeRank] = {};  // condition, x, y
};
cudaError_t LaunchWhere(void* dst, const uint8_t* condition, const void* x,
                        const void* y, size_t element_size,
                        const WhereParams& params, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_LAUNCH_H_
