#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_

// What the reference backend's kernels share: the RefKernel base and the
// registry they add themselves to. Each op is one file in this folder that
// registers its kernels by (op, dtype) with core/kernel_registry.h's macros:
//
//   SY_REGISTER_KERNEL(RefKernels(), "relu", DType::kFloat32,
//                      &MakeRelu<float>);
//   SY_REGISTER_KERNEL(
//       RefKernels(), "max_pool2d", DType::kFloat32,
//       &MakeKernelWithAttrs<MaxPool2dKernel, MaxPool2dAttrs, RefDevice>);
//   SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "flatten", &MakeCopyElements);

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/reference/ref_device.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/graph.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"

namespace switchyard {
namespace reference {

// The base of every reference kernel. Run checks what the executor hands
// over (operand count, the kernel's dtype, every tensor on this kernel's
// device), so a core bug that passes a tensor of another device or dtype
// fails loudly here instead of reading foreign memory; then Compute does
// the op on host pointers.
class RefKernel : public Kernel {
 public:
  RefKernel(const RefDevice& device, DType dtype, int min_inputs,
            int max_inputs)
      : device_(device.device()),
        dtype_(dtype),
        min_inputs_(min_inputs),
        max_inputs_(max_inputs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) final;

 protected:
  virtual void Compute(absl::Span<const Tensor* const> inputs,
                       Tensor& output) = 0;

 private:
  Device device_;
  DType dtype_;
  int min_inputs_, max_inputs_;
};

// Copies the input's bytes to the output, whatever the dtype: Flatten (a
// new shape over the same row-major data) and Dropout at inference.
class CopyElementsKernel : public RefKernel {
 public:
  CopyElementsKernel(const RefDevice& device, DType dtype)
      : RefKernel(device, dtype, 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override;
};

// The factory of a CopyElementsKernel in the node's dtype, for each dtype
// the op moves:
//   SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "flatten", &MakeCopyElements);
absl::StatusOr<std::unique_ptr<Kernel>> MakeCopyElements(const Node& node,
                                                         const Graph& graph,
                                                         RefDevice& device);

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_
