#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_

#include <cstring>

#include "core/backend.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

// Copies the input's bytes to the output: the whole of Flatten (a new shape
// over the same row-major data) and of Dropout at inference.
class IdentityKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    std::memcpy(outputs[0]->data<float>(), inputs[0]->data<float>(),
                outputs[0]->size_bytes());
    return absl::OkStatus();
  }
};

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_IDENTITY_H_
