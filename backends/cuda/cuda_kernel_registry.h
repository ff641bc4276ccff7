#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_KERNEL_REGISTRY_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"
#include "core/graph.h"

namespace switchyard {
namespace cuda {

class CudaDevice;

// One op's CUDA kernel: whether it can run a node (OK, or Unimplemented with
// the reason, e.g. cuDNN missing), and how to build it. The node is
// shape-inferred, so attributes are valid and operand shapes known.
struct CudaKernelEntry {
  // Null: every node of the op is supported.
  std::function<absl::Status(const Node& node, const Graph& graph)> supports;
  std::function<absl::StatusOr<std::unique_ptr<Kernel>>(
      const Node& node, const Graph& graph, CudaDevice& device)>
      create;
};

// Each kernel file registers itself:
//   static const bool kRegistered = RegisterCudaKernel("relu", {nullptr, &MakeRelu});
bool RegisterCudaKernel(const std::string& op, CudaKernelEntry entry);

// Null when the CUDA backend has no kernel for `op`.
const CudaKernelEntry* FindCudaKernel(const std::string& op);

std::vector<std::string> CudaKernelOps();

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_KERNEL_REGISTRY_H_
