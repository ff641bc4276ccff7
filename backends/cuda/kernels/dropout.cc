// Dropout: the identity at inference, as in PyTorch's eval mode.

#include "backends/cuda/cuda_kernel_registry.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterCudaKernel(
    "dropout", {nullptr, [](const Node&, const Graph&, CudaDevice& device)
                             -> absl::StatusOr<std::unique_ptr<Kernel>> {
                  return std::make_unique<IdentityKernel>(device);
                }});

}  // namespace
}  // namespace cuda
}  // namespace switchyard
