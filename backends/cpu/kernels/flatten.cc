// Flatten: row-major data is unchanged, only the shape differs; any dtype.

#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "flatten",
                              &MakeKernel<IdentityKernel, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
