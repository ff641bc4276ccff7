#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_VIEW_RANK_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_VIEW_RANK_H_

// The rank check of the kernels that walk a tensor element by element with
// fixed per-dim parameter arrays (shape_view.cuh's kMaxShapeRank): pad,
// resize. Host-only.
//
//   SY_RETURN_IF_ERROR(CheckViewRank("pad", device(), in.shape()));

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/kernels/shape_view.cuh"
#include "core/shape.h"

namespace switchyard {
namespace cuda {

// Unimplemented (run it on the CPU) when `input` has more dims than the
// kernels' parameters hold.
inline absl::Status CheckViewRank(const std::string& op,
                                  const CudaDevice& device,
                                  const Shape& input) {
  if (input.rank() <= kernels::kMaxShapeRank) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      op, " on ", device.name(), " takes at most ", kernels::kMaxShapeRank,
      " dims, got input ", input.ToString(), "; run it on the CPU"));
}

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_VIEW_RANK_H_
