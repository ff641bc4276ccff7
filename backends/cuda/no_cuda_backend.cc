// The CUDA backend of a build without CUDA: it registers "cuda" with zero
// devices and says why, so that `switchyard devices` and `--device=cuda:0`
// explain what to do instead of "no backend is registered". It takes the
// same options as the real backend (cuda_options.h), so a command line that
// sets them works on both builds.

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_options.h"
#include "local_cuda/cuda_config.h"

namespace switchyard {
namespace cuda {
namespace {

std::string Reason() {
#ifdef SWITCHYARD_CUDA_DISABLED_BY_FLAG
  return "this binary was built without CUDA (--define=switchyard_cuda=off); "
         "rebuild without that flag";
#else
  return absl::StrCat(
      "this binary was built without CUDA: ", SWITCHYARD_CUDA_MISSING_REASON,
      ". Install the CUDA 13 toolkit and cuDNN 9 (README.md, 'Getting CUDA') "
      "and rebuild");
#endif
}

class NoCudaBackend : public Backend {
 public:
  std::string type() const override { return "cuda"; }
  std::vector<BackendOption> Options() const override { return options_.List(); }
  absl::Status SetOption(const std::string& key, const std::string& value) override {
    return options_.Set(key, value);
  }
  int DeviceCount() const override { return 0; }
  std::string UnavailableReason() const override { return Reason(); }
  BackendDevice& GetDevice(int index) override {
    std::abort();  // the registry never asks: DeviceCount() is 0
  }

 private:
  CudaOptions options_{Tf32FromEnvironment()};
};

absl::Status Unavailable() { return absl::UnavailableError(Reason()); }

[[maybe_unused]] const bool kRegistered =
    RegisterBackend("cuda", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return CreateCudaBackend();
    });

}  // namespace

std::unique_ptr<Backend> CreateCudaBackend() {
  return std::make_unique<NoCudaBackend>();
}

absl::StatusOr<AllocatorStats> CudaMemoryStats(BackendRegistry&, const Device&) {
  return Unavailable();
}

absl::Status CudaEmptyCache(BackendRegistry&, const Device&) {
  return Unavailable();
}

std::vector<std::pair<std::string, DType>> CudaKernelKeys() { return {}; }

bool BuiltWithCuda() { return false; }

}  // namespace cuda
}  // namespace switchyard
