// Flatten: row-major data is unchanged, only the shape differs; a byte
// copy, so every dtype.

#include "backends/cuda/kernels/identity_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterIdentity("flatten", AllDTypes());

}  // namespace
}  // namespace cuda
}  // namespace switchyard
