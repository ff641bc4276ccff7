#include "core/kernel_registry.h"

namespace switchyard {

DType KernelDType(const Node& node, const Graph& graph) {
  if (!node.inputs.empty()) return graph.value(node.inputs[0]).dtype;
  if (!node.outputs.empty()) return graph.value(node.outputs[0]).dtype;
  return DType::kFloat32;
}

std::string KernelKeyName(const std::string& op, DType dtype) {
  return absl::StrCat(op, " (", DTypeName(dtype), ")");
}

}  // namespace switchyard
