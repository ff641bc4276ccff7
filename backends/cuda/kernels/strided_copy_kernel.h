#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_KERNEL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_KERNEL_H_

// Host side shared by the shape ops' CUDA kernels: one strided copy on the
// device's stream (shape_launch.h LaunchStridedCopy, after merging dims,
// shape_copy.h), and registration for every dtype.
//
//   SY_RETURN_IF_ERROR(RunStridedCopy(device, "transpose", out_ptr, in_ptr,
//                                     element_size, dims, dst, src));

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/shape_copy.h"
#include "backends/cuda/kernels/shape_launch.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {

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

// Registers `make` as `op`'s factory for every dtype.
inline bool RegisterEveryDType(
    const std::string& op, const KernelRegistry<CudaDevice>::Factory& make) {
  bool all = true;
  for (DType dtype : AllDTypes()) all &= CudaKernels().Register(op, dtype, make);
  return all;
}

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_STRIDED_COPY_KERNEL_H_
