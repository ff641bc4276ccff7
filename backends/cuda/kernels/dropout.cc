// Dropout: the identity at inference, as in PyTorch's eval mode; a byte
// copy, so every dtype the op takes (the floating ones, ops/dropout.cc).

#include "backends/cuda/kernels/identity_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterIdentity(
    "dropout", {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64});

}  // namespace
}  // namespace cuda
}  // namespace switchyard
