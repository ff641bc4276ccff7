// Dropout: the identity at inference, as in PyTorch's eval mode; in the
// floating dtypes the op takes (ops/dropout.cc).

#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterIdentityKernels(
    "dropout", {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                DType::kFloat64});

}  // namespace
}  // namespace cpu
}  // namespace switchyard
