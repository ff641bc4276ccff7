#ifndef SWITCHYARD_BACKENDS_CPU_CPU_KERNEL_REGISTRY_H_
#define SWITCHYARD_BACKENDS_CPU_CPU_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/cpu_context.h"
#include "core/backend.h"
#include "core/graph.h"

namespace switchyard {
namespace cpu {

// Builds the CPU kernel for one node; the node is shape-inferred, so
// attributes are valid and operand shapes known. Kernels keep the context
// they were built with (a later thread-count change builds a new one).
using CpuKernelFactory = std::function<absl::StatusOr<std::unique_ptr<Kernel>>(
    const Node& node, const Graph& graph,
    std::shared_ptr<const CpuContext> context)>;

// Each kernel file registers itself:
//   static const bool kRegistered = RegisterCpuKernel("relu", &MakeReluKernel);
bool RegisterCpuKernel(const std::string& op, CpuKernelFactory factory);

// Null when the CPU backend has no kernel for `op`.
const CpuKernelFactory* FindCpuKernel(const std::string& op);

std::vector<std::string> CpuKernelOps();

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_CPU_KERNEL_REGISTRY_H_
