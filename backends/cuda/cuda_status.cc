#include "backends/cuda/cuda_status.h"

#include "absl/strings/str_cat.h"
#include "local_cuda/cuda_config.h"

namespace switchyard {
namespace cuda {

std::string CudaErrorText(cudaError_t error) {
  return absl::StrCat(cudaGetErrorName(error), " (", cudaGetErrorString(error),
                      ")");
}

absl::string_view CallName(absl::string_view expression) {
  const size_t paren = expression.find('(');
  return paren == absl::string_view::npos ? expression
                                          : expression.substr(0, paren);
}

std::string CudaVersionString(int version) {
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

absl::Status CudaStatus(cudaError_t error, absl::string_view call,
                        absl::string_view device) {
  if (error == cudaSuccess) return absl::OkStatus();
  // Errors from a failed call (not from a kernel) stay set as the thread's
  // last error; clear it so that the next check reports its own failure.
  cudaGetLastError();
  std::string message = absl::StrCat(call, " on ", device, " failed: ",
                                     CudaErrorText(error));
  switch (error) {
    case cudaErrorMemoryAllocation:
      return absl::ResourceExhaustedError(message);
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorInitializationError:
      return absl::UnavailableError(message);
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidKernelImage:
      return absl::FailedPreconditionError(absl::StrCat(
          message,
          ". This build has GPU code for compute capability ",
          SWITCHYARD_CUDA_ARCHS_STRING,
          " (machine code, plus PTX of the highest); rebuild with "
          "SWITCHYARD_CUDA_ARCHS=<this GPU's capability> (tools/cuda.bzl), or "
          "update the driver so that it can compile the PTX"));
    default:
      return absl::InternalError(message);
  }
}

}  // namespace cuda
}  // namespace switchyard
