#include "backends/cuda/cuda_backend.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_options.h"
#include "backends/cuda/cuda_status.h"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace {

// Why cudaGetDeviceCount gave no device, in words a user can act on: the
// cause and the fix first, CUDA's own error after them.
std::string ExplainNoDevice(cudaError_t error) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);  // 0 when no driver could be loaded
  cudaRuntimeGetVersion(&runtime);
  std::string cause;
  if (driver == 0) {
    cause =
        "no NVIDIA driver is loaded (libcuda.so.1 was not found or found no GPU): "
        "install the NVIDIA driver, or run on a machine with an NVIDIA GPU";
  } else if (driver < runtime) {
    cause = absl::StrCat("the driver supports CUDA ", CudaVersionString(driver),
                         " but this binary's runtime is ", CudaVersionString(runtime),
                         ": update the NVIDIA driver");
  } else if (error == cudaErrorNoDevice) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    cause = absl::StrCat("no GPU is visible",
                         visible != nullptr
                             ? absl::StrCat(" (CUDA_VISIBLE_DEVICES='", visible, "')")
                             : "",
                         ": check nvidia-smi");
  }
  const std::string cuda = absl::StrCat("cudaGetDeviceCount failed: ", CudaErrorText(error));
  return cause.empty() ? cuda : absl::StrCat(cause, " (", cuda, ")");
}

class CudaBackend : public Backend {
 public:
  // `device_count` GPUs, or none and `reason`.
  CudaBackend(int device_count, std::string reason)
      : options_(std::make_unique<CudaOptions>(Tf32FromEnvironment())),
        reason_(std::move(reason)) {
    for (int i = 0; i < device_count; ++i) {
      devices_.push_back(std::make_unique<CudaDevice>(i, *options_));
    }
  }

  std::string type() const override { return "cuda"; }
  int DeviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string UnavailableReason() const override { return reason_; }
  BackendDevice& GetDevice(int index) override { return *devices_[index]; }

  std::vector<BackendOption> Options() const override { return options_->List(); }
  absl::Status SetOption(const std::string& key, const std::string& value) override {
    return options_->Set(key, value);
  }

 private:
  // Declared first: the devices read it until they are destroyed.
  const std::unique_ptr<CudaOptions> options_;
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
    return std::make_unique<CudaBackend>(0, ExplainNoDevice(error));
  }
  if (count == 0) {
    return std::make_unique<CudaBackend>(
        0,
        "cudaGetDeviceCount found no CUDA GPU: check nvidia-smi and "
        "CUDA_VISIBLE_DEVICES");
  }
  return std::make_unique<CudaBackend>(count, "");
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

std::vector<std::pair<std::string, DType>> CudaKernelKeys() {
  return CudaKernels().Keys();
}

bool BuiltWithCuda() { return true; }

}  // namespace cuda
}  // namespace switchyard
