#include "core/passes/shape_inference.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

std::string DescribeNode(const Node& node) {
  return absl::StrCat("node '", node.name, "' (op ", node.op,
                      node.layer.empty() ? "" : absl::StrCat(", layer '", node.layer, "'"),
                      ")");
}

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
    if (!def.ok()) {
      return absl::Status(def.status().code(),
                          absl::StrCat(DescribeNode(node), ": ",
                                       def.status().message()));
    }
    const int given = static_cast<int>(node.inputs.size());
    const int most = static_cast<int>((*def)->operand_names().size());
    if (given < (*def)->min_operands() || given > most) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeNode(node), ": takes ", (*def)->min_operands(),
          (*def)->min_operands() == most ? "" : absl::StrCat(" to ", most),
          " operands, got ", given));
    }
    for (ValueId id : node.inputs) {
      const Value& v = graph.value(id);
      if (!v.shape.has_value()) {
        return absl::InternalError(absl::StrCat(
            DescribeNode(node), ": operand '", v.name,
            "' has no shape; nodes must come after their operands"));
      }
      if (v.dtype != DType::kFloat32) {
        return absl::UnimplementedError(absl::StrCat(
            DescribeNode(node), ": operand '", v.name, "' is ",
            DTypeName(v.dtype), "; only float32 is supported"));
      }
    }
    absl::StatusOr<Shape> shape =
        (*def)->InferShape(node.attrs, graph.InputShapes(node));
    if (!shape.ok()) {
      return absl::Status(shape.status().code(),
                          absl::StrCat(DescribeNode(node), ": ",
                                       shape.status().message()));
    }
    absl::Status valid =
        Shape::Create(shape->dims(),
                      DTypeSize(graph.value(node.outputs[0]).dtype))
            .status();
    if (!valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeNode(node), ": invalid output shape: ", valid.message()));
    }
    Value& out = graph.mutable_value(node.outputs[0]);
    if (!out.shape.has_value() || *out.shape != *shape) {
      out.shape = *shape;
      changed = true;
    }
  }
  return changed;
}

}  // namespace switchyard
