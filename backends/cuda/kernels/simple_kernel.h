#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_SIMPLE_KERNEL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_SIMPLE_KERNEL_H_

// Small helpers shared by the CUDA kernel files.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "core/backend.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace cuda {

// Copies the input's bytes to the output on the device's stream: the whole
// of Flatten (a new shape over the same row-major data) and of Dropout at
// inference.
class IdentityKernel : public Kernel {
 public:
  explicit IdentityKernel(CudaDevice& device) : device_(device) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const size_t bytes = outputs[0]->size_bytes();
    void* out = outputs[0]->data<void>();
    const void* in = inputs[0]->data<void>();
    if (bytes == 0 || out == in) return absl::OkStatus();
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice,
                                            device_.stream()),
                            device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

// Registers `op` with an IdentityKernel for each of `dtypes` (a byte copy
// does not care which); for the data-movement ops' own files.
inline bool RegisterIdentity(const std::string& op, const std::vector<DType>& dtypes) {
  bool registered = true;
  for (DType dtype : dtypes) {
    registered &= CudaKernels().Register(
        op, dtype,
        [](const Node&, const Graph&,
           CudaDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          return std::make_unique<IdentityKernel>(device);
        });
  }
  return registered;
}

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_SIMPLE_KERNEL_H_
