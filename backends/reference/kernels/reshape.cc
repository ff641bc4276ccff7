// Reshape: row-major data does not move; only the shape (which shape
// inference computed) differs, so the kernel copies the bytes. Every dtype.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "reshape", &MakeCopyElements);

}  // namespace
}  // namespace reference
}  // namespace switchyard
