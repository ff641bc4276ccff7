#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_LINEAR_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_LINEAR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/epilogue.h"
#include "core/backend.h"
#include "core/graph.h"

namespace switchyard {
namespace cpu {

// The float32 linear kernel of `node` (shape-inferred): inputs (input,
// weight[, bias]), one output of the linear's shape. `activation` is
// applied per thread's block of features after the bias (kRelu: the
// linear+relu partition).
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearKernel(
    const Node& node, const Graph& graph,
    std::shared_ptr<const CpuContext> context, Activation activation);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_LINEAR_H_
