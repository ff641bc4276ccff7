// Reshape: row-major data is unchanged, only the shape differs; any dtype.

#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterIdentityKernels("reshape");

}  // namespace
}  // namespace cpu
}  // namespace switchyard
