// Dropout: the identity at inference, as in PyTorch's eval mode; any dtype.

#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterIdentityKernels("dropout");

}  // namespace
}  // namespace cpu
}  // namespace switchyard
