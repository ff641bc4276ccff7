#include "passes/relu_fusion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/op_names.h"

namespace switchyard {

std::vector<ReluFusion> FindReluFusions(const Graph& graph, const Device& device) {
  return FindActivationFusions(graph, device, {op_names::kRelu});
}

std::vector<ReluFusion> FindActivationFusions(const Graph& graph, const Device& device,
                                              const std::vector<std::string>& followers) {
  const auto follows = [&](const std::string& op) {
    return std::find(followers.begin(), followers.end(), op) != followers.end();
  };
  // How many node operands read each value, and which are graph outputs.
  std::vector<int> readers(graph.values().size(), 0);
  for (const Node& node : graph.nodes()) {
    for (ValueId id : node.inputs) ++readers[id];
  }
  for (ValueId id : graph.outputs()) readers[id] += 1 << 20;  // never private

  std::vector<ReluFusion> fusions;
  const std::vector<Node>& nodes = graph.nodes();
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    const Node& producer = nodes[i];
    const Node& relu = nodes[i + 1];
    if (!follows(relu.op) || follows(producer.op)) continue;
    if (producer.device != device || relu.device != device) continue;
    if (producer.outputs.size() != 1 || relu.inputs.size() != 1 ||
        relu.inputs[0] != producer.outputs[0]) {
      continue;
    }
    if (readers[producer.outputs[0]] != 1) continue;
    // A relu whose output nobody reads would leave the group no output.
    if (relu.outputs.size() != 1 || readers[relu.outputs[0]] == 0) continue;
    std::vector<ValueId> operands = producer.inputs;
    std::sort(operands.begin(), operands.end());
    if (std::adjacent_find(operands.begin(), operands.end()) != operands.end()) {
      continue;
    }
    fusions.push_back({producer.id, relu.id});
    ++i;  // the relu is taken
  }
  return fusions;
}

std::string ReluFusionName(const std::string& producer_op, const std::string& follower_op) {
  return absl::StrCat(producer_op, "+", follower_op);
}

}  // namespace switchyard
