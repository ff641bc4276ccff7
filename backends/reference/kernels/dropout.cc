// Dropout: the identity at inference, as PyTorch's eval mode (this runtime
// never trains), whatever the attribute p. Pure data movement, so it runs
// in every dtype the op takes (the floating ones, ops/dropout.cc).

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "dropout", &MakeCopyElements,
                              {DType::kFloat32, DType::kFloat16,
                               DType::kBFloat16, DType::kFloat64});

}  // namespace
}  // namespace reference
}  // namespace switchyard
