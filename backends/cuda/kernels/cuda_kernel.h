#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_CUDA_KERNEL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_CUDA_KERNEL_H_

// What every CUDA kernel file (kernels/<op>.cc) builds on: the Kernel
// interface, CudaDevice and its registry CudaKernels(), SY_CUDA_RETURN_IF_ERROR
// for CUDA calls, and the registration helpers below.
//
//   class PadKernel : public Kernel {
//    public:
//     PadKernel(CudaDevice& device, PadAttrs attrs);
//     ...
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
