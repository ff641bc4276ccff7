// Flatten: row-major data does not move; only the shape (which shape
// inference computed) differs, so the kernel copies the bytes. Pure data
// movement, so it runs in every dtype.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "flatten", &MakeCopyElements);

}  // namespace
}  // namespace reference
}  // namespace switchyard
