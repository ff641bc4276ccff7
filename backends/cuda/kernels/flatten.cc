// Flatten: row-major data is unchanged, only the shape differs.

#include "backends/cuda/cuda_kernel_registry.h"
#include "backends/cuda/kernels/simple_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterCudaKernel(
    "flatten", {nullptr, [](const Node&, const Graph&, CudaDevice& device)
                             -> absl::StatusOr<std::unique_ptr<Kernel>> {
                  return std::make_unique<IdentityKernel>(device);
                }});

}  // namespace
}  // namespace cuda
}  // namespace switchyard
