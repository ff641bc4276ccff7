#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_COPY_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_COPY_H_

// Host-side geometry for the shape ops' CUDA kernels (plain C++): row-major
// strides, and a strided copy's launch parameters with size-1 dims dropped
// and neighbours both views walk as one merged, so that ranks beyond
// kMaxShapeRank rarely remain.
//
//   StridedCopyParams p;
//   if (!MakeStridedCopy(dims, ContiguousStrides(dims), src_strides, &p)) {
//     ... more than kMaxShapeRank dims even merged: refuse ...
//   }

#include <cstdint>
#include <vector>

#include "backends/cuda/kernels/shape_launch.h"

namespace switchyard {
namespace cuda {
namespace kernels {

inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

// False when more than kMaxShapeRank dims remain after merging.
inline bool MakeStridedCopy(const std::vector<int64_t>& dims,
                            const std::vector<int64_t>& dst_strides,
                            const std::vector<int64_t>& src_strides,
                            StridedCopyParams* params) {
  std::vector<int64_t> n, dst, src;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!n.empty() && dst.back() == dst_strides[d] * dims[d] &&
        src.back() == src_strides[d] * dims[d]) {
      n.back() *= dims[d];
      dst.back() = dst_strides[d];
      src.back() = src_strides[d];
      continue;
    }
    n.push_back(dims[d]);
    dst.push_back(dst_strides[d]);
    src.push_back(src_strides[d]);
  }
  if (n.empty()) {
    n = {1};
    dst = src = {1};
  }
  if (n.size() > static_cast<size_t>(kMaxShapeRank)) return false;
  *params = StridedCopyParams();
  params->rank = static_cast<int>(n.size());
  for (size_t d = 0; d < n.size(); ++d) {
    params->dims[d] = n[d];
    params->dst_strides[d] = dst[d];
    params->src_strides[d] = src[d];
  }
  return true;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_COPY_H_
