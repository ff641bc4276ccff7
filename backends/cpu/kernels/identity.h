#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_

#include <cstring>
#include <memory>

#include "backends/cpu/cpu_device.h"
#include "core/backend.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

// Copies the input's bytes to the output: the whole of Flatten and Reshape
// (a new shape over the same row-major data) and of Dropout at inference.
// Bytes are bytes, so one kernel serves every dtype:
//   SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "flatten",
//                                 &MakeKernel<IdentityKernel, CpuDevice>);
class IdentityKernel : public Kernel {
 public:
  explicit IdentityKernel(const CpuDevice&) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const size_t bytes = outputs[0]->size_bytes();
    if (bytes != 0) {
      std::memcpy(outputs[0]->data<char>(), inputs[0]->data<char>(), bytes);
    }
    return absl::OkStatus();
  }
};

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
