#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_HOST_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_HOST_H_

// The host side of strided_copy.cu, which transpose, slice, expand, concat
// and split share: row-major strides, a copy's launch parameters with
// size-1 dims dropped and neighbours both views walk as one merged (so that
// ranks beyond kMaxShapeRank rarely remain), and one copy run on a device's
// stream.
//
//   SY_RETURN_IF_ERROR(RunStridedCopy(device, "transpose", out_ptr, in_ptr,
//                                     element_size, dims, dst, src));

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/strided_copy.cuh"

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

// The caller has activated `device`. Unimplemented for a view of more than
// kMaxShapeRank dims even after merging.
inline absl::Status RunStridedCopy(CudaDevice& device, const char* op,
                                   void* dst, const void* src,
                                   size_t element_size,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& dst_strides,
                                   const std::vector<int64_t>& src_strides) {
  for (int64_t n : dims) {
    if (n == 0) return absl::OkStatus();
  }
  kernels::StridedCopyParams params;
  if (!kernels::MakeStridedCopy(dims, dst_strides, src_strides, &params)) {
    return absl::UnimplementedError(absl::StrCat(
        op, " on ", device.name(), " moves views of at most ",
        kernels::kMaxShapeRank, " dims once merged; this one has more (",
        dims.size(), " dims); run it on the CPU"));
  }
  SY_CUDA_RETURN_IF_ERROR(
      kernels::LaunchStridedCopy(dst, src, element_size, params,
                                 device.stream()),
      device.name());
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_HOST_H_
