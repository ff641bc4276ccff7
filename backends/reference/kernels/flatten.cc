// Flatten: row-major data does not move; only the shape (which shape
// inference computed) differs, so the kernel copies the elements.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {

absl::StatusOr<std::unique_ptr<Kernel>> MakeFlattenKernel(
    const Node&, const Graph&, const Device& device) {
  return std::make_unique<CopyElementsKernel>(device);
}

}  // namespace reference
}  // namespace switchyard
