#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_VIEW_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_VIEW_CUH_

// The row-major views the data-movement kernels (strided_copy.cu, pad.cu,
// where.cu) walk: at most kMaxShapeRank dims, each kernel's parameters
// holding fixed arrays of that size. Views of more dims (after merging,
// strided_copy_host.h) are the caller's to refuse. Plain C++; the
// element count is also device code.
//
//   const int64_t total = ViewElements(params.rank, params.dims);

#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {
namespace cuda {
namespace kernels {

inline constexpr int kMaxShapeRank = 8;

SY_HOST_DEVICE inline int64_t ViewElements(int rank, const int64_t* dims) {
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= dims[d];
  return total;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SHAPE_VIEW_CUH_
