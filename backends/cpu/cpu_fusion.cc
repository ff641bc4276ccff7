// The CPU device's partitions: conv2d(+bias) and linear(+bias) followed by
// relu or clip (ReLU6: MobileNet's activation) run as the conv2d or linear
// kernel with that activation as its epilogue, applied to each output tile
// while it is in cache instead of in a second pass over the whole output
// (kernels/epilogue.h). Results equal the unfused pair's: the same GEMM,
// then the same max(x + b, 0) or clamp on the same floats.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/conv2d.h"
#include "backends/cpu/kernels/linear.h"
#include "core/graph.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"
#include "ops/op_names.h"
#include "passes/relu_fusion.h"

namespace switchyard {
namespace cpu {
namespace {

bool HasReluEpilogue(const std::string& op) {
  return op == op_names::kConv2d || op == op_names::kLinear;
}

// The activations the epilogue applies (kernels/epilogue.h).
const std::vector<std::string>& EpilogueActivations() {
  static const auto* ops = new std::vector<std::string>{op_names::kRelu, ClipAttrs::kOp};
  return *ops;
}

// The epilogue for the partition's second node: relu, or clip with its
// bounds as the clip kernel rounds them to float.
absl::StatusOr<Activation> EpilogueFor(const Node& node) {
  if (node.op == op_names::kRelu) return Activation::Relu();
  SY_ASSIGN_OR_RETURN(ClipAttrs clip, ClipAttrs::FromAttrMap(node.attrs));
  return Activation::Clip(static_cast<float>(clip.min), static_cast<float>(clip.max));
}

// A pair the fusion rules allow (passes/relu_fusion.h) that this device also
// runs: float32 conv2d or linear with a known shape, both nodes supported.
bool Fusable(const Graph& graph, const ReluFusion& fusion,
             const CpuDevice& device) {
  const Node& first = graph.node(fusion.producer);
  const Node& relu = graph.node(fusion.relu);
  if (!HasReluEpilogue(first.op)) return false;
  const Value& made = graph.value(first.outputs[0]);
  if (made.dtype != DType::kFloat32 ||
      graph.value(relu.outputs[0]).dtype != DType::kFloat32 ||
      !made.shape.has_value()) {
    return false;
  }
  return device.Supports(first, graph).ok() && device.Supports(relu, graph).ok();
}

}  // namespace

std::vector<Partition> CpuDevice::ClaimPartitions(const Graph& graph) const {
  std::vector<Partition> partitions;
  if (!fusion()) return partitions;
  for (const ReluFusion& fusion :
       FindActivationFusions(graph, device(), EpilogueActivations())) {
    if (!Fusable(graph, fusion, *this)) continue;
    partitions.push_back({{fusion.producer, fusion.relu},
                          ReluFusionName(graph.node(fusion.producer).op,
                                         graph.node(fusion.relu).op)});
  }
  return partitions;
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuDevice::CreatePartitionKernel(
    const Partition& partition, const Graph& graph) {
  const auto& activations = EpilogueActivations();
  if (partition.nodes.size() != 2 ||
      !HasReluEpilogue(graph.node(partition.nodes[0]).op) ||
      std::find(activations.begin(), activations.end(),
                graph.node(partition.nodes[1]).op) == activations.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu:0 runs only the partitions it claims (conv2d or linear, then relu or "
        "clip), not '", partition.name, "' of ", partition.nodes.size(), " nodes"));
  }
  SY_ASSIGN_OR_RETURN(Activation activation, EpilogueFor(graph.node(partition.nodes[1])));
  // The partition's inputs are the first node's operands, in order (they are
  // distinct); its output is the relu's, of the same shape as the first's.
  const Node& first = graph.node(partition.nodes[0]);
  if (first.op == op_names::kConv2d) {
    return MakeConv2dKernel(first, graph, context(), activation, conv_algorithm(),
                            prepared_weights_);
  }
  return MakeLinearKernel(first, graph, context(), activation);
}

}  // namespace cpu
}  // namespace switchyard
