// The CPU device's partitions: conv2d(+bias)->relu and linear(+bias)->relu
// run as the conv2d or linear kernel with a ReLU epilogue, applied to each
// output tile while it is in cache instead of in a second pass over the
// whole output (kernels/epilogue.h). Results equal the unfused pair's: the
// same GEMM, then the same max(x + b, 0) on the same floats.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/conv2d.h"
#include "backends/cpu/kernels/linear.h"
#include "core/graph.h"

namespace switchyard {
namespace cpu {
namespace {

bool HasReluEpilogue(const std::string& op) {
  return op == "conv2d" || op == "linear";
}

bool OnDevice(const Node& node, const Device& device) {
  return node.device.has_value() && *node.device == device;
}

// How many node operands read each value, and which values the graph returns.
struct Uses {
  std::vector<int> readers;
  std::vector<bool> graph_output;
};

Uses CountUses(const Graph& graph) {
  Uses uses{std::vector<int>(graph.values().size(), 0),
            std::vector<bool>(graph.values().size(), false)};
  for (const Node& node : graph.nodes()) {
    for (ValueId id : node.inputs) ++uses.readers[id];
  }
  for (ValueId id : graph.outputs()) uses.graph_output[id] = true;
  return uses;
}

bool DistinctOperands(const Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    for (size_t j = i + 1; j < node.inputs.size(); ++j) {
      if (node.inputs[i] == node.inputs[j]) return false;
    }
  }
  return true;
}

// `first` (conv2d or linear) and `relu`, consecutive, can run as one kernel:
// both float32 on `device`, the relu reads `first`'s output, and nothing
// else does (nor is it a graph output, which would need it stored). Repeated
// operands are left alone: the partition's inputs list each value once.
bool Fusable(const Graph& graph, const Node& first, const Node& relu,
             const Uses& uses, const CpuDevice& device) {
  if (!HasReluEpilogue(first.op) || relu.op != "relu") return false;
  if (!OnDevice(first, device.device()) || !OnDevice(relu, device.device())) {
    return false;
  }
  if (first.outputs.size() != 1 || relu.inputs.size() != 1 ||
      relu.outputs.size() != 1 || relu.inputs[0] != first.outputs[0]) {
    return false;
  }
  const ValueId made = first.outputs[0];
  if (uses.readers[made] != 1 || uses.graph_output[made]) return false;
  if (!DistinctOperands(first)) return false;
  if (graph.value(made).dtype != DType::kFloat32 ||
      graph.value(relu.outputs[0]).dtype != DType::kFloat32 ||
      !graph.value(made).shape.has_value()) {
    return false;
  }
  return device.Supports(first, graph).ok() && device.Supports(relu, graph).ok();
}

}  // namespace

std::vector<Partition> CpuDevice::ClaimPartitions(const Graph& graph) const {
  std::vector<Partition> partitions;
  if (!fusion()) return partitions;
  const Uses uses = CountUses(graph);
  const std::vector<Node>& nodes = graph.nodes();
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    if (!Fusable(graph, nodes[i], nodes[i + 1], uses, *this)) continue;
    partitions.push_back({{nodes[i].id, nodes[i + 1].id},
                          absl::StrCat(nodes[i].op, "+relu")});
    ++i;  // the relu is taken
  }
  return partitions;
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuDevice::CreatePartitionKernel(
    const Partition& partition, const Graph& graph) {
  if (partition.nodes.size() != 2 ||
      !HasReluEpilogue(graph.node(partition.nodes[0]).op) ||
      graph.node(partition.nodes[1]).op != "relu") {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu:0 runs only the partitions it claims (conv2d+relu, linear+relu), "
        "not '", partition.name, "' of ", partition.nodes.size(), " nodes"));
  }
  // The partition's inputs are the first node's operands, in order (they are
  // distinct); its output is the relu's, of the same shape as the first's.
  const Node& first = graph.node(partition.nodes[0]);
  if (first.op == "conv2d") {
    return MakeConv2dKernel(first, graph, context(), Activation::kRelu);
  }
  return MakeLinearKernel(first, graph, context(), Activation::kRelu);
}

}  // namespace cpu
}  // namespace switchyard
