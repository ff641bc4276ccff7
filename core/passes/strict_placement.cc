#include "core/passes/strict_placement.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/op_def.h"
#include "core/copy_op.h"

namespace switchyard {
namespace {

std::string OperandRole(const Node& node, size_t i) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(node.op);
  if (def.ok() && i < (*def)->operand_names().size()) {
    return (*def)->operand_names()[i];
  }
  return absl::StrCat("operand ", i);
}

// The error a PyTorch user wishes "Expected all tensors to be on the same
// device" were: which node, which layer, each operand and the way out.
absl::Status MixedDevicesError(const Graph& graph, const Node& node,
                               BackendRegistry& registry) {
  std::string message = absl::StrCat(
      DescribeNode(node), " has operands on different devices:\n");
  std::vector<Device> data_devices;   // graph inputs and node outputs
  std::vector<Device> param_devices;  // constants (the model's parameters)
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value& v = graph.value(node.inputs[i]);
    absl::StrAppend(&message, "  ", OperandRole(node, i), " '", v.name, "' ",
                    ShapeOrUnknown(v), " on ", DeviceOrUnknown(v),
                    v.constant ? " (parameter)" : "", "\n");
    if (v.device) (v.constant ? param_devices : data_devices).push_back(*v.device);
  }
  std::vector<std::string> available;
  for (const Device& d : registry.AvailableDevices()) {
    available.push_back(d.ToString());
  }
  absl::StrAppend(&message, "Available devices: ",
                  available.empty() ? "none" : absl::StrJoin(available, ", "),
                  ".\nFix: ");
  if (!data_devices.empty() && !param_devices.empty()) {
    const std::string model = param_devices.front().ToString();
    const std::string data = data_devices.front().ToString();
    absl::StrAppend(&message, "move the input to the model's device (x.To(\"",
                    model, "\")), or the model to the input's device (model.To(\"",
                    data, "\"))");
  } else {
    absl::StrAppend(&message, "move every operand to one device with To(device)");
  }
  absl::StrAppend(&message,
                  ", or use the auto placement policy, which inserts the copy "
                  "and reports what it moves (--placement=auto on the command "
                  "line, PlacementPolicy::kAuto in CompileOptions or "
                  "Module::set_placement).");
  return absl::InvalidArgumentError(message);
}

}  // namespace

absl::StatusOr<bool> StrictPlacementPass::Run(Graph& graph) {
  bool changed = false;
  for (const Node& node : graph.nodes()) {
    std::optional<Device> device;
    if (node.op == kCopyOp) {
      absl::StatusOr<Device> target = CopyTarget(node);
      if (!target.ok()) return target.status();
      device = *target;
    } else {
      for (ValueId id : node.inputs) {
        const Value& v = graph.value(id);
        if (!v.device.has_value()) {
          return absl::InternalError(absl::StrCat(
              DescribeNode(node), ": operand '", v.name, "' has no device"));
        }
        if (device.has_value() && *device != *v.device) {
          return MixedDevicesError(graph, node, registry_);
        }
        device = v.device;
      }
    }
    if (!device.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(DescribeNode(node), " has no operands to place it by"));
    }
    absl::StatusOr<BackendDevice*> available = registry_.GetDevice(*device);
    if (!available.ok()) {
      return absl::Status(available.status().code(),
                          absl::StrCat(DescribeNode(node), ": ",
                                       available.status().message()));
    }
    Node& mutable_node = graph.mutable_node(node.id);
    if (mutable_node.device != device) changed = true;
    mutable_node.device = device;
    for (ValueId out : node.outputs) graph.mutable_value(out).device = device;
  }
  return changed;
}

}  // namespace switchyard
