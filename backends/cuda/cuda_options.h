#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_OPTIONS_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_OPTIONS_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend.h"

namespace switchyard {
namespace cuda {

// The CUDA backend's options (Backend::Options / SetOption), kept apart
// from any CUDA type so that the build without CUDA takes the same keys
// and values:
//
//   allow_tf32   "true" or "false": TF32 on tensor cores for Linear
//                (cuBLASLt) and Conv2d (cuDNN) kernels created afterwards,
//                as torch.backends.cuda.matmul.allow_tf32 and
//                torch.backends.cudnn.allow_tf32. Default: false, unless the
//                environment variable SWITCHYARD_CUDA_TF32 is 1/true/on/yes.
//
//   CudaOptions options(Tf32FromEnvironment());
//   options.Set("allow_tf32", "true");  // OK; "maybe" is InvalidArgument
inline constexpr char kAllowTf32Option[] = "allow_tf32";
inline constexpr char kTf32EnvironmentVariable[] = "SWITCHYARD_CUDA_TF32";

// Whether SWITCHYARD_CUDA_TF32 asks for TF32 (1, true, on or yes, any case).
bool Tf32FromEnvironment();

class CudaOptions {
 public:
  explicit CudaOptions(bool allow_tf32) : allow_tf32_(allow_tf32) {}

  std::vector<BackendOption> List() const;
  // InvalidArgument naming the key and the accepted keys, or the value and
  // the accepted values.
  absl::Status Set(const std::string& key, const std::string& value);

  bool allow_tf32() const { return allow_tf32_.load(); }

 private:
  std::atomic<bool> allow_tf32_;
};

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_OPTIONS_H_
