#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_CUDA_KERNEL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_CUDA_KERNEL_H_

// What every CUDA kernel file (kernels/<op>.cc) builds on: the Kernel
// interface, CudaDevice and its registry CudaKernels(), SY_CUDA_RETURN_IF_ERROR
// for CUDA calls, and the helpers below for kernels configured by their
// op's typed attributes.
//
//   class PadKernel : public AttrsKernel<PadAttrs> {
//    public:
//     using AttrsKernel::AttrsKernel;
//     absl::Status Run(...) override;  // uses device() and attrs()
//   };
//   [[maybe_unused]] const bool kRegistered =
//       RegisterEveryDType("pad", &MakeWithAttrs<PadAttrs, PadKernel>);

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "core/backend.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace cuda {

// A kernel whose configuration is its op's typed attributes, parsed once
// when it is made (MakeWithAttrs below).
template <typename Attrs>
class AttrsKernel : public Kernel {
 public:
  AttrsKernel(CudaDevice& device, Attrs attrs)
      : device_(device), attrs_(std::move(attrs)) {}

 protected:
  CudaDevice& device() const { return device_; }
  const Attrs& attrs() const { return attrs_; }

 private:
  CudaDevice& device_;
  Attrs attrs_;
};

// An AttrsKernel of one input and one output that has nothing to do when
// the output is empty; subclasses implement RunOne.
template <typename Attrs>
class OneToOneAttrsKernel : public AttrsKernel<Attrs> {
 public:
  using AttrsKernel<Attrs>::AttrsKernel;
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) final {
    if (outputs[0]->num_elements() == 0) return absl::OkStatus();
    return RunOne(*inputs[0], *outputs[0]);
  }

 protected:
  virtual absl::Status RunOne(const Tensor& in, Tensor& out) = 0;
};

// The factory of a kernel built from its op's typed attributes alone:
// Attrs::FromAttrMap(node.attrs) (its error as it is), then
// KernelT(device, attrs).
template <typename Attrs, typename KernelT>
absl::StatusOr<std::unique_ptr<Kernel>> MakeWithAttrs(const Node& node,
                                                      const Graph&,
                                                      CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(Attrs attrs, Attrs::FromAttrMap(node.attrs));
  return std::make_unique<KernelT>(device, std::move(attrs));
}

// Registers `make` as `op`'s factory for every dtype: for the kernels that
// move elements without reading them.
inline bool RegisterEveryDType(
    const std::string& op, const KernelRegistry<CudaDevice>::Factory& make) {
  bool all = true;
  for (DType dtype : AllDTypes()) all &= CudaKernels().Register(op, dtype, make);
  return all;
}

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_CUDA_KERNEL_H_
