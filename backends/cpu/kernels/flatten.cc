// Flatten: row-major data is unchanged, only the shape differs.

#include "backends/cpu/cpu_kernel_registry.h"
#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterCpuKernel(
    "flatten", [](const Node&, const Graph&, std::shared_ptr<const CpuContext>)
                   -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<IdentityKernel>();
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
