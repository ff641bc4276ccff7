#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/backend.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

// Copies the input's bytes to the output: the whole of Flatten (a new shape
// over the same row-major data) and of Dropout at inference. Bytes are
// bytes, so one kernel serves every dtype.
class IdentityKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const size_t bytes = outputs[0]->size_bytes();
    if (bytes != 0) {
      std::memcpy(outputs[0]->data<char>(), inputs[0]->data<char>(), bytes);
    }
    return absl::OkStatus();
  }
};

// Registers IdentityKernel as `op`'s kernel for each of `dtypes` (every
// dtype by default); false when one of them was taken. For a kernel file's
// static initializer:
//   [[maybe_unused]] const bool kRegistered = RegisterIdentityKernels("flatten");
inline bool RegisterIdentityKernels(
    const std::string& op,
    const std::vector<DType>& dtypes = AllDTypes()) {
  bool all = true;
  for (DType dtype : dtypes) {
    all &= CpuKernels().Register(
        op, dtype,
        [](const Node&, const Graph&,
           CpuDevice&) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          return std::make_unique<IdentityKernel>();
        });
  }
  return all;
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
