#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_IDENTITY_KERNEL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_IDENTITY_KERNEL_H_

// The kernel of the ops that leave the bytes as they are (flatten, reshape,
// dropout at inference): one device-to-device copy on the stream.
//
//   [[maybe_unused]] const bool kRegistered =
//       RegisterIdentity("flatten", AllDTypes());

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"

namespace switchyard {
namespace cuda {

// Copies the input's bytes to the output on the device's stream (nothing
// when they are the same buffer): the whole of Flatten (a new shape over the
// same row-major data) and of Dropout at inference.
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
// does not care which).
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

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_IDENTITY_KERNEL_H_
