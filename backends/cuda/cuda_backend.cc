#include "backends/cuda/cuda_backend.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace {

bool Tf32FromEnvironment() {
  const char* value = std::getenv("SWITCHYARD_CUDA_TF32");
  if (value == nullptr) return false;
  const std::string v = absl::AsciiStrToLower(value);
  return v == "1" || v == "true" || v == "on" || v == "yes";
}

// Why cudaGetDeviceCount gave no device, in words a user can act on.
std::string ExplainNoDevice(cudaError_t error) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);  // 0 when no driver could be loaded
  cudaRuntimeGetVersion(&runtime);
  std::string reason =
      absl::StrCat("cudaGetDeviceCount failed: ", CudaErrorText(error));
  if (driver == 0) {
    absl::StrAppend(&reason,
                    "; no NVIDIA driver is loaded (libcuda.so.1 was not found "
                    "or found no GPU): install the NVIDIA driver, or run on a "
                    "machine with an NVIDIA GPU");
  } else if (driver < runtime) {
    absl::StrAppend(&reason, "; the driver supports CUDA ",
                    CudaVersionString(driver), " but this binary's runtime is ",
                    CudaVersionString(runtime), ": update the NVIDIA driver");
  } else if (error == cudaErrorNoDevice) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    absl::StrAppend(&reason, "; no GPU is visible",
                    visible != nullptr
                        ? absl::StrCat(" (CUDA_VISIBLE_DEVICES='", visible, "')")
                        : "",
                    ": check nvidia-smi");
  }
  return reason;
}

class CudaBackend : public Backend {
 public:
  CudaBackend(std::vector<std::unique_ptr<CudaDevice>> devices,
              std::string reason)
      : devices_(std::move(devices)), reason_(std::move(reason)) {}

  std::string type() const override { return "cuda"; }
  int DeviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string UnavailableReason() const override { return reason_; }
  BackendDevice& GetDevice(int index) override { return *devices_[index]; }
  CudaDevice& cuda_device(int index) { return *devices_[index]; }

 private:
  std::vector<std::unique_ptr<CudaDevice>> devices_;
  std::string reason_;
};

absl::StatusOr<CudaDevice*> FindCudaDevice(BackendRegistry& registry,
                                           const Device& device) {
  if (device.type() != "cuda") {
    return absl::InvalidArgumentError(
        absl::StrCat(device.ToString(), " is not a CUDA device"));
  }
  absl::StatusOr<BackendDevice*> found = registry.GetDevice(device);
  if (!found.ok()) return found.status();
  auto* cuda = dynamic_cast<CudaDevice*>(*found);
  if (cuda == nullptr) {
    return absl::FailedPreconditionError(
        "the backend registered as 'cuda' is not Switchyard's CUDA backend");
  }
  return cuda;
}

[[maybe_unused]] const bool kRegistered =
    RegisterBackend("cuda", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return CreateCudaBackend();
    });

}  // namespace

std::unique_ptr<Backend> CreateCudaBackend() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return std::make_unique<CudaBackend>(
        std::vector<std::unique_ptr<CudaDevice>>(), ExplainNoDevice(error));
  }
  if (count == 0) {
    return std::make_unique<CudaBackend>(
        std::vector<std::unique_ptr<CudaDevice>>(),
        "cudaGetDeviceCount found no CUDA GPU: check nvidia-smi and "
        "CUDA_VISIBLE_DEVICES");
  }
  const bool tf32 = Tf32FromEnvironment();
  std::vector<std::unique_ptr<CudaDevice>> devices;
  for (int i = 0; i < count; ++i) {
    devices.push_back(std::make_unique<CudaDevice>(i, tf32));
  }
  return std::make_unique<CudaBackend>(std::move(devices), "");
}

absl::StatusOr<AllocatorStats> CudaMemoryStats(BackendRegistry& registry,
                                               const Device& device) {
  absl::StatusOr<CudaDevice*> cuda = FindCudaDevice(registry, device);
  if (!cuda.ok()) return cuda.status();
  return (*cuda)->allocator().stats();
}

absl::Status CudaEmptyCache(BackendRegistry& registry, const Device& device) {
  absl::StatusOr<CudaDevice*> cuda = FindCudaDevice(registry, device);
  if (!cuda.ok()) return cuda.status();
  return (*cuda)->allocator().ReleaseCache();
}

absl::Status SetCudaAllowTf32(BackendRegistry& registry, bool allow) {
  absl::StatusOr<Backend*> backend = registry.GetBackend("cuda");
  if (!backend.ok()) return backend.status();
  auto* cuda = dynamic_cast<CudaBackend*>(*backend);
  if (cuda == nullptr) {
    return absl::FailedPreconditionError(
        "the backend registered as 'cuda' is not Switchyard's CUDA backend");
  }
  for (int i = 0; i < cuda->DeviceCount(); ++i) {
    cuda->cuda_device(i).set_allow_tf32(allow);
  }
  return absl::OkStatus();
}

bool BuiltWithCuda() { return true; }

}  // namespace cuda
}  // namespace switchyard
