#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_BACKEND_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_BACKEND_H_

// The CUDA backend: device type "cuda", one device "cuda:N" per visible GPU.
// Linking //backends/cuda registers it in BackendRegistry::Global(); where
// the build had no CUDA toolkit it still registers, with zero devices and
// the reason, so `switchyard devices` and errors always explain themselves.
//
// What a PyTorch user expects, and where it is:
//   torch.cuda.is_available()      registry.GetBackend("cuda")->DeviceCount() > 0
//   torch.cuda.device_count()      ... DeviceCount(); UnavailableReason() says why 0
//   torch.cuda.get_device_name(0)  registry.GetDevice(cuda:0)->Info().name (and
//                                  compute capability, SMs, memory, versions)
//   model.cuda(), x.cuda()         model.To(*Device::Parse("cuda")), x.To(...)
//   torch.cuda.memory_stats()      CudaMemoryStats(registry, device)
//   torch.cuda.empty_cache()       CudaEmptyCache(registry, device)
//   torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
//                                  registry.SetOption("cuda", "allow_tf32", "true")
//                                  (--backend_option=cuda.allow_tf32=true), or
//                                  the environment variable SWITCHYARD_CUDA_TF32=1
//
// Math is FP32 by default (TF32 off): cuBLASLt with CUBLAS_COMPUTE_32F,
// cuDNN with CUDNN_FMA_MATH, so results match the CPU backend at the golden
// tolerance. TF32 is faster on tensor cores and rounds inputs to a 10-bit
// mantissa (relative error about 1e-3): opt in only where that is fine.
//
// Fusion: a conv2d or linear followed by the relu that alone reads it runs
// as one partition (the convolution or the matmul with its bias epilogue,
// then one NaN-keeping ReLU pass); `switchyard graph` shows the partitions.
//
// Libraries: the CUDA runtime is linked statically; cuBLASLt and cuDNN are
// loaded with dlopen when first needed (backends/cuda/cuda_libraries.h), so
// a binary starts on any machine and a missing library is an error naming
// it. docs/architecture.md ("The CUDA backend") has the whole design.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/caching_allocator.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/dtype.h"

namespace switchyard {
namespace cuda {

// The backend the registry creates: every visible GPU, or none and why
// (e.g. "cudaGetDeviceCount failed: cudaErrorInsufficientDriver ...").
std::unique_ptr<Backend> CreateCudaBackend();

// The caching allocator's statistics for one CUDA device.
absl::StatusOr<AllocatorStats> CudaMemoryStats(BackendRegistry& registry,
                                               const Device& device);

// Returns the device's cached, unused memory to the driver (after waiting
// for its queued work). Tensors that are alive keep their memory.
absl::Status CudaEmptyCache(BackendRegistry& registry, const Device& device);

// Every (op, dtype) the backend has a kernel for, sorted (none in a build
// without CUDA): what the conformance suite runs on cuda:N.
std::vector<std::pair<std::string, DType>> CudaKernelKeys();

// Whether this binary was built with CUDA (a toolkit was found and
// --define=switchyard_cuda=off was not given).
bool BuiltWithCuda();

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_BACKEND_H_
