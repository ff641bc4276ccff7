// Dropout: the identity at inference, as in PyTorch's eval mode.

#include "backends/cpu/cpu_kernel_registry.h"
#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterCpuKernel(
    "dropout", [](const Node&, const Graph&, std::shared_ptr<const CpuContext>)
                   -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<IdentityKernel>();
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
