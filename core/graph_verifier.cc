#include "core/graph_verifier.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/copy_op.h"

namespace switchyard {
namespace {

absl::Status Broken(const std::string& what) {
  return absl::InternalError(absl::StrCat("graph invariant broken: ", what));
}

}  // namespace

absl::Status VerifyGraph(const Graph& graph) {
  const int num_values = static_cast<int>(graph.values().size());
  const int num_nodes = static_cast<int>(graph.nodes().size());
  auto valid_value = [&](ValueId id) { return id >= 0 && id < num_values; };

  for (int i = 0; i < num_values; ++i) {
    const Value& v = graph.value(i);
    if (v.id != i) {
      return Broken(absl::StrCat("value '", v.name, "' at position ", i,
                                 " has id ", v.id));
    }
    if (v.producer >= num_nodes) {
      return Broken(absl::StrCat("value '", v.name, "' names producer ",
                                 v.producer, ", which does not exist"));
    }
    if (v.constant.has_value() && v.constant->defined() && v.shape.has_value() &&
        (v.constant->shape() != *v.shape || v.constant->dtype() != v.dtype)) {
      return Broken(absl::StrCat("constant '", v.name, "' is ",
                                 DTypeName(v.constant->dtype()),
                                 v.constant->shape().ToString(),
                                 " but its value says ", DTypeName(v.dtype),
                                 v.shape->ToString()));
    }
  }
  for (ValueId id : graph.inputs()) {
    if (!valid_value(id) || graph.value(id).producer >= 0 ||
        graph.value(id).constant.has_value()) {
      return Broken(absl::StrCat("graph input ", id, " is not an input value"));
    }
  }
  for (ValueId id : graph.outputs()) {
    if (!valid_value(id)) {
      return Broken(absl::StrCat("graph output ", id, " does not exist"));
    }
  }

  // Available so far: inputs, constants, then each node's outputs.
  std::vector<bool> available(num_values, false);
  for (const Value& v : graph.values()) {
    if (v.producer < 0) available[v.id] = true;
  }
  for (int n = 0; n < num_nodes; ++n) {
    const Node& node = graph.node(n);
    if (node.id != n) {
      return Broken(absl::StrCat(DescribeNode(node), " at position ", n,
                                 " has id ", node.id));
    }
    for (ValueId id : node.inputs) {
      if (!valid_value(id)) {
        return Broken(absl::StrCat(DescribeNode(node), " reads value ", id,
                                   ", which does not exist"));
      }
      if (!available[id]) {
        return Broken(absl::StrCat(DescribeNode(node), " reads '",
                                   graph.value(id).name,
                                   "' before the node that makes it"));
      }
      const Value& operand = graph.value(id);
      if (node.device.has_value() && node.op != kCopyOp &&
          operand.device.has_value() && *operand.device != *node.device) {
        return Broken(absl::StrCat(DescribeNode(node), " on ",
                                   node.device->ToString(), " reads '",
                                   operand.name, "' on ",
                                   operand.device->ToString()));
      }
    }
    for (ValueId id : node.outputs) {
      if (!valid_value(id) || graph.value(id).producer != n) {
        return Broken(absl::StrCat(DescribeNode(node), " lists output ", id,
                                   ", which it does not make"));
      }
      if (available[id]) {
        return Broken(absl::StrCat("value '", graph.value(id).name,
                                   "' is made twice"));
      }
      available[id] = true;
      const Value& out = graph.value(id);
      if (node.device.has_value() && out.device != node.device) {
        return Broken(absl::StrCat(DescribeNode(node), " is placed on ",
                                   node.device->ToString(), " but its output '",
                                   out.name, "' on ", DeviceOrUnknown(out)));
      }
    }
  }
  for (ValueId id : graph.outputs()) {
    if (!available[id]) {
      return Broken(absl::StrCat("graph output '", graph.value(id).name,
                                 "' is made by no node"));
    }
  }
  return absl::OkStatus();
}

}  // namespace switchyard
