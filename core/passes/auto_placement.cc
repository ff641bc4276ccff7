#include "core/passes/auto_placement.h"

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/copy_op.h"
#include "core/shared_memory.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

int64_t ValueBytes(const Value& v) {
  return v.shape->num_elements() * static_cast<int64_t>(DTypeSize(v.dtype));
}

}  // namespace

absl::StatusOr<bool> AutoPlacementPass::Run(Graph& graph) {
  SY_ASSIGN_OR_RETURN(BackendDevice * target, registry_.GetDevice(target_));
  PlacementReport local;
  PlacementReport& report = report_ != nullptr ? *report_ : local;
  // One copy per (value, device), shared by every consumer.
  std::map<std::pair<ValueId, Device>, ValueId> copies;
  bool changed = false;

  for (NodeId i = 0; i < static_cast<NodeId>(graph.nodes().size()); ++i) {
    if (graph.node(i).op == kCopyOp) continue;  // the user's own copies stay
    Device device = target_;
    absl::Status supported = target->Supports(graph.node(i), graph);
    if (!supported.ok()) {
      absl::StatusOr<BackendDevice*> fallback =
          fallback_ ? registry_.GetDevice(*fallback_) : supported;
      if (!fallback.ok() || !(*fallback)->Supports(graph.node(i), graph).ok()) {
        return absl::Status(supported.code(),
                            absl::StrCat(DescribeNode(graph.node(i)), " cannot run on ",
                                         target_.ToString(), ": ", supported.message(),
                                         fallback_ ? absl::StrCat(", nor on ", fallback_->ToString())
                                                   : std::string()));
      }
      device = *fallback_;
      report.fallbacks.push_back(
          {graph.node(i).name, target_, device, std::string(supported.message())});
    }

    for (size_t k = 0; k < graph.node(i).inputs.size(); ++k) {
      const ValueId id = graph.node(i).inputs[k];
      const Value& v = graph.value(id);
      if (*v.device == device) continue;
      changed = true;
      auto found = copies.find({id, device});
      ValueId copied;
      if (found != copies.end()) {
        copied = found->second;
      } else if (v.constant) {
        // A parameter: moved once now, as a new constant, rather than copied
        // every run.
        const Device from = *v.device;
        const std::string value_name = v.name;
        const int64_t bytes = ValueBytes(v);
        SY_ASSIGN_OR_RETURN(BackendDevice * to_device, registry_.GetDevice(device));
        const bool shared = SharesMemory(v.constant->backend_device(), *to_device);
        SY_ASSIGN_OR_RETURN(Tensor moved, MoveOrShare(*v.constant, *to_device));
        copied = graph.AddConstant(value_name, moved);
        copies[{id, device}] = copied;
        report.moves.push_back({value_name, from, device, bytes, false, shared});
      } else {
        AttrMap to;
        to.Set("device", device.ToString());
        const std::string layer = graph.node(i).layer;
        const Device from = *v.device;
        const std::string value_name = v.name;
        const Shape shape = *v.shape;
        const DType dtype = v.dtype;
        const int64_t bytes = ValueBytes(v);
        copied = graph.InsertNodeBefore(i, kCopyOp, layer, {id}, std::move(to));
        Node& copy = graph.mutable_node(i);
        copy.name = absl::StrCat("copy:", value_name, "->", device.ToString());
        copy.device = device;
        Value& out = graph.mutable_value(copied);
        out.name = absl::StrCat(copy.name, ":0");
        out.shape = shape;
        out.dtype = dtype;
        out.device = device;
        copies[{id, device}] = copied;
        // Between devices of host memory the copy node runs as a share
        // (core/lowering.cc): the bytes stay where they are.
        SY_ASSIGN_OR_RETURN(BackendDevice * from_device, registry_.GetDevice(from));
        SY_ASSIGN_OR_RETURN(BackendDevice * to_device, registry_.GetDevice(device));
        report.moves.push_back({value_name, from, device, bytes, true,
                                SharesMemory(*from_device, *to_device)});
        ++i;  // the consumer moved one place down
      }
      graph.mutable_node(i).inputs[k] = copied;
    }
    Node& node = graph.mutable_node(i);
    if (node.device != device) changed = true;
    node.device = device;
    for (ValueId out : node.outputs) graph.mutable_value(out).device = device;
  }
  return changed;
}

}  // namespace switchyard
