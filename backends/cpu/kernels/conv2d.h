#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_H_

#include <memory>

#include "absl/status/statusor.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/conv2d_algorithm.h"
#include "backends/cpu/kernels/epilogue.h"
#include "core/backend.h"
#include "core/graph.h"
#include "core/prepared_weights.h"

namespace switchyard {
namespace cpu {

// The float32 conv2d kernel of `node` (shape-inferred): inputs (input,
// weight[, bias]), one output of the conv's shape. `activation` is applied
// per output tile after the bias (kRelu: the conv2d+relu partition).
// `algorithm` is the cpu.conv_algorithm option: kAuto chooses from the
// shapes (ChooseConvAlgorithm); the kernel's Describe() says what it chose.
// Constant weights transformed for Winograd come from `prepared` (the
// device's), once per weight for every plan.
absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2dKernel(
    const Node& node, const Graph& graph,
    std::shared_ptr<const CpuContext> context, Activation activation,
    ConvAlgorithm algorithm, PreparedWeights& prepared);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_H_
