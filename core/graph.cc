#include "core/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace switchyard {

ValueId Graph::AddInput(const std::string& name, const Shape& shape,
                        const Device& device, DType dtype) {
  Value v;
  v.id = static_cast<ValueId>(values_.size());
  v.name = name;
  v.shape = shape;
  v.dtype = dtype;
  v.device = device;
  values_.push_back(std::move(v));
  inputs_.push_back(values_.back().id);
  return values_.back().id;
}

ValueId Graph::AddConstant(const std::string& name, const Tensor& tensor,
                           std::shared_ptr<ConstantResidency> residency) {
  Value v;
  v.id = static_cast<ValueId>(values_.size());
  v.name = name;
  v.shape = tensor.shape();
  v.dtype = tensor.dtype();
  v.device = tensor.device();
  v.constant = tensor;
  v.residency = std::move(residency);
  values_.push_back(std::move(v));
  return values_.back().id;
}

std::string DescribeNode(const Node& node) {
  return absl::StrCat("node '", node.name, "' (op ", node.op,
                      node.layer.empty() ? "" : absl::StrCat(", layer '", node.layer, "'"),
                      ")");
}

ValueId Graph::AddNode(const std::string& op, const std::string& layer,
                       std::vector<ValueId> inputs, AttrMap attrs) {
  return AddNodeWithOutputs(op, layer, std::move(inputs), std::move(attrs), 1)
      .front();
}

std::vector<ValueId> Graph::AddNodeWithOutputs(const std::string& op,
                                               const std::string& layer,
                                               std::vector<ValueId> inputs,
                                               AttrMap attrs, int num_outputs) {
  Node n;
  n.id = static_cast<NodeId>(nodes_.size());
  n.name = layer.empty() ? absl::StrCat(op, "_", n.id)
                         : absl::StrCat(layer, "/", op);
  n.op = op;
  n.layer = layer;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (int i = 0; i < num_outputs; ++i) {
    Value out;
    out.id = static_cast<ValueId>(values_.size());
    out.name = absl::StrCat(n.name, ":", i);
    out.producer = n.id;
    n.outputs.push_back(out.id);
    values_.push_back(std::move(out));
  }
  std::vector<ValueId> outputs = n.outputs;
  nodes_.push_back(std::move(n));
  return outputs;
}

ValueId Graph::InsertNodeBefore(NodeId before, const std::string& op,
                                const std::string& layer,
                                std::vector<ValueId> inputs, AttrMap attrs) {
  const ValueId out = AddNode(op, layer, std::move(inputs), std::move(attrs));
  Node moved = std::move(nodes_.back());
  nodes_.pop_back();
  nodes_.insert(nodes_.begin() + before, std::move(moved));
  for (NodeId i = 0; i < static_cast<NodeId>(nodes_.size()); ++i) {
    nodes_[i].id = i;
    for (ValueId o : nodes_[i].outputs) values_[o].producer = i;
  }
  return out;
}

absl::Status Graph::RemoveNode(NodeId id,
                               absl::Span<const ValueId> replacements) {
  if (id < 0 || id >= static_cast<NodeId>(nodes_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RemoveNode: no node ", id, " in a graph of ", nodes_.size()));
  }
  const std::vector<ValueId> removed = nodes_[id].outputs;
  if (replacements.size() != removed.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RemoveNode: ", DescribeNode(nodes_[id]), " has ", removed.size(),
        " outputs but ", replacements.size(), " replacements were given"));
  }
  for (ValueId r : replacements) {
    if (r < 0 || r >= static_cast<ValueId>(values_.size()) ||
        std::find(removed.begin(), removed.end(), r) != removed.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RemoveNode: replacement value ", r, " for ",
                       DescribeNode(nodes_[id]), " is not a value it keeps"));
    }
  }
  auto replace = [&](ValueId& v) {
    for (size_t i = 0; i < removed.size(); ++i) {
      if (v == removed[i]) v = replacements[i];
    }
  };
  nodes_.erase(nodes_.begin() + id);
  for (Node& n : nodes_) {
    for (ValueId& v : n.inputs) replace(v);
  }
  for (ValueId& v : outputs_) replace(v);
  for (ValueId v : removed) values_[v].producer = -1;
  for (NodeId i = id; i < static_cast<NodeId>(nodes_.size()); ++i) {
    nodes_[i].id = i;
    for (ValueId o : nodes_[i].outputs) values_[o].producer = i;
  }
  return absl::OkStatus();
}

std::vector<Shape> Graph::InputShapes(const Node& node) const {
  std::vector<Shape> shapes;
  for (ValueId v : node.inputs) shapes.push_back(values_[v].shape.value());
  return shapes;
}

std::string ShapeOrUnknown(const Value& value) {
  return value.shape ? value.shape->ToString() : "?";
}

namespace {

// "[1, 10]", with the dtype when it is not float32: "int64[5, 3]".
std::string TypeText(const Value& value) {
  return absl::StrCat(
      value.dtype == DType::kFloat32 ? "" : DTypeName(value.dtype),
      ShapeOrUnknown(value));
}

}  // namespace

std::string DeviceOrUnknown(const Value& value) {
  return value.device ? value.device->ToString() : "?";
}

std::string Graph::ToText() const {
  std::string out;
  for (ValueId id : inputs_) {
    const Value& v = values_[id];
    absl::StrAppend(&out, "input ", v.name, " ", TypeText(v), " on ",
                    DeviceOrUnknown(v), "\n");
  }
  for (const Node& n : nodes_) {
    std::vector<std::string> operands;
    for (ValueId id : n.inputs) operands.push_back(TypeText(values_[id]));
    std::vector<std::string> results;
    for (ValueId id : n.outputs) results.push_back(TypeText(values_[id]));
    absl::StrAppend(&out, n.name, "  ", n.op, "(", absl::StrJoin(operands, ", "),
                    ") -> ", absl::StrJoin(results, ", "), "  on ",
                    n.device ? n.device->ToString() : "?");
    if (!n.attrs.values().empty()) absl::StrAppend(&out, "  {", n.attrs.ToString(), "}");
    out.append("\n");
  }
  std::vector<std::string> outs;
  for (ValueId id : outputs_) outs.push_back(values_[id].name);
  absl::StrAppend(&out, "output ", absl::StrJoin(outs, ", "), "\n");
  return out;
}

std::string Graph::ToDot() const {
  auto quote = [](const std::string& s) {
    return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\\\""}}), "\"");
  };
  std::string out = "digraph switchyard {\n  rankdir=TB;\n  node [shape=box];\n";
  for (ValueId id : inputs_) {
    const Value& v = values_[id];
    absl::StrAppend(&out, "  v", id, " [shape=ellipse,label=",
                    quote(absl::StrCat(v.name, "\\n", ShapeOrUnknown(v), "\\n",
                                       DeviceOrUnknown(v))),
                    "];\n");
  }
  for (const Node& n : nodes_) {
    absl::StrAppend(&out, "  n", n.id, " [label=",
                    quote(absl::StrCat(n.name, "\\n", n.op, " -> ",
                                       ShapeOrUnknown(values_[n.outputs[0]]),
                                       "\\n",
                                       n.device ? n.device->ToString() : "?")),
                    "];\n");
    for (ValueId in : n.inputs) {
      const Value& v = values_[in];
      if (v.constant) continue;  // parameters would clutter the picture
      absl::StrAppend(&out, "  ",
                      v.producer >= 0 ? absl::StrCat("n", v.producer)
                                      : absl::StrCat("v", in),
                      " -> n", n.id, ";\n");
    }
  }
  for (ValueId id : outputs_) {
    absl::StrAppend(&out, "  out", id, " [shape=ellipse,label=",
                    quote(values_[id].name), "];\n  ",
                    values_[id].producer >= 0
                        ? absl::StrCat("n", values_[id].producer)
                        : absl::StrCat("v", id),
                    " -> out", id, ";\n");
  }
  out.append("}\n");
  return out;
}

}  // namespace switchyard
