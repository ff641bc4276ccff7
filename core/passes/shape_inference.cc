#include "core/passes/shape_inference.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

absl::Status AtNode(const Node& node, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(DescribeNode(node), ": ",
                                                  status.message()));
}

}  // namespace

absl::StatusOr<bool> ShapeInferencePass::Run(Graph& graph) {
  bool changed = false;
  // Op definitions may assume valid operand shapes (dimensions >= 0, sizes
  // that fit in int64), so graph inputs and parameters, whose shapes come
  // from the user, are checked first, and every inferred shape after.
  for (const Value& v : graph.values()) {
    if (v.producer >= 0 || !v.shape.has_value()) continue;
    absl::Status valid =
        Shape::Create(v.shape->dims(), DTypeSize(v.dtype)).status();
    if (!valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          v.constant.has_value() ? "parameter '" : "graph input '", v.name,
          "' has an invalid shape: ", valid.message()));
    }
  }
  for (const Node& node : graph.nodes()) {
    absl::StatusOr<const OpDef*> def = ops_.Find(node.op);
    if (!def.ok()) return AtNode(node, def.status());
    const OpSchema& schema = (*def)->schema();
    absl::Status count = schema.CheckOperandCount(
        static_cast<int>(node.inputs.size()), node.op);
    if (!count.ok()) return AtNode(node, count);
    absl::Status attrs = schema.CheckAttrs(node.attrs, node.op);
    if (!attrs.ok()) return AtNode(node, attrs);
    std::vector<TensorType> operands;
    for (ValueId id : node.inputs) {
      const Value& v = graph.value(id);
      if (!v.shape.has_value()) {
        return absl::InternalError(absl::StrCat(
            DescribeNode(node), ": operand '", v.name,
            "' has no shape; nodes must come after their operands"));
      }
      operands.push_back({*v.shape, v.dtype});
    }
    absl::StatusOr<std::vector<TensorType>> types =
        (*def)->InferTypes(node.attrs, operands);
    if (!types.ok()) return AtNode(node, types.status());
    if (types->size() != node.outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeNode(node), ": the op makes ", types->size(),
          " output(s) but the node has ", node.outputs.size()));
    }
    for (size_t i = 0; i < types->size(); ++i) {
      const TensorType& type = (*types)[i];
      absl::Status valid =
          Shape::Create(type.shape.dims(), DTypeSize(type.dtype)).status();
      if (!valid.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            DescribeNode(node), ": invalid ",
            types->size() == 1 ? std::string("output shape")
                               : absl::StrCat("shape of output ", i),
            ": ", valid.message()));
      }
      Value& out = graph.mutable_value(node.outputs[i]);
      if (!out.shape.has_value() || *out.shape != type.shape ||
          out.dtype != type.dtype) {
        out.shape = type.shape;
        out.dtype = type.dtype;
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace switchyard
