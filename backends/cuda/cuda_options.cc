#include "backends/cuda/cuda_options.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace cuda {

bool Tf32FromEnvironment() {
  const char* value = std::getenv(kTf32EnvironmentVariable);
  if (value == nullptr) return false;
  const std::string v = absl::AsciiStrToLower(value);
  return v == "1" || v == "true" || v == "on" || v == "yes";
}

std::vector<BackendOption> CudaOptions::List() const {
  return {{kAllowTf32Option, allow_tf32() ? "true" : "false",
           absl::StrCat("TF32 tensor-core math for linear and conv2d kernels "
                        "created afterwards (true/false; default from ",
                        kTf32EnvironmentVariable, ", else false)")}};
}

absl::Status CudaOptions::Set(const std::string& key, const std::string& value) {
  if (key != kAllowTf32Option) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the cuda backend has no option '", key, "'; its options: ", kAllowTf32Option));
  }
  if (value != "true" && value != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "option '", kAllowTf32Option, "' takes true or false, not '", value, "'"));
  }
  allow_tf32_.store(value == "true");
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace switchyard
