// Dropout: the identity at inference, as PyTorch's eval mode (this runtime
// never trains), whatever the attribute p.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {

absl::StatusOr<std::unique_ptr<Kernel>> MakeDropoutKernel(
    const Node&, const Graph&, const Device& device) {
  return std::make_unique<CopyElementsKernel>(device);
}

}  // namespace reference
}  // namespace switchyard
