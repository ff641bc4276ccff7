#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_STATUS_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_STATUS_H_

// CUDA runtime results as absl::Status: every call the backend makes is
// checked, and a failure names the call, the CUDA error (name and text) and
// the device, with a hint where one helps.
//
//   SY_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(p, 0, n, stream), "cuda:0");
//   // -> Internal: "cudaMemsetAsync on cuda:0 failed: cudaErrorInvalidValue
//   //    (invalid argument)"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {

// OK for cudaSuccess. Otherwise the most specific code: ResourceExhausted
// for out of memory, Unavailable for a missing driver or device,
// FailedPrecondition for a GPU this build has no code for, else Internal.
absl::Status CudaStatus(cudaError_t error, absl::string_view call,
                        absl::string_view device);

// "cudaErrorMemoryAllocation (out of memory)".
std::string CudaErrorText(cudaError_t error);

// The function name of a stringized call: "cudaMalloc(&p, n)" -> "cudaMalloc".
absl::string_view CallName(absl::string_view expression);

// "13.0" from 13000 (cudaDriverGetVersion / cudaRuntimeGetVersion).
std::string CudaVersionString(int version);

}  // namespace cuda
}  // namespace switchyard

#define SY_CUDA_RETURN_IF_ERROR(expr, device)                        \
  SY_RETURN_IF_ERROR(::switchyard::cuda::CudaStatus(                 \
      (expr), ::switchyard::cuda::CallName(#expr), (device)))

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_STATUS_H_
