// Dropout: the identity at inference, as in PyTorch's eval mode; in the
// floating dtypes the op takes (ops/dropout.cc).

#include "backends/cpu/kernels/identity.h"

namespace switchyard {
namespace cpu {
namespace {

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "dropout",
                              &MakeKernel<IdentityKernel, CpuDevice>,
                              {DType::kFloat32, DType::kFloat16,
                               DType::kBFloat16, DType::kFloat64});

}  // namespace
}  // namespace cpu
}  // namespace switchyard
