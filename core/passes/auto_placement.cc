#include "core/passes/auto_placement.h"

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/passes/shape_inference.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

int64_t ValueBytes(const Value& v) {
  return v.shape->num_elements() * static_cast<int64_t>(DTypeSize(v.dtype));
}

}  // namespace

int64_t PlacementReport::BytesPerRun() const {
  int64_t bytes = 0;
  for (const Move& m : moves) bytes += m.per_run ? m.bytes : 0;
  return bytes;
}

int PlacementReport::CopiesPerRun() const {
  int copies = 0;
  for (const Move& m : moves) copies += m.per_run ? 1 : 0;
  return copies;
}

std::string PlacementReport::ToString() const {
  std::vector<std::string> per_run, once;
  int64_t once_bytes = 0;
  for (const Move& m : moves) {
    const std::string line = absl::StrCat(m.value, " ", m.from.ToString(), " -> ",
                                          m.to.ToString(), " (", m.bytes, " bytes)");
    (m.per_run ? per_run : once).push_back(line);
    if (!m.per_run) once_bytes += m.bytes;
  }
  std::string out = absl::StrCat("auto placement: ", per_run.size(), " cop",
                                 per_run.size() == 1 ? "y" : "ies", " per run, ",
                                 BytesPerRun(), " bytes per run");
  if (!per_run.empty()) absl::StrAppend(&out, "\n  every run: ", absl::StrJoin(per_run, "\n             "));
  if (!once.empty()) {
    absl::StrAppend(&out, "\n  ", once.size(), " parameter", once.size() == 1 ? "" : "s",
                    " moved once at compile time (", once_bytes, " bytes): ",
                    absl::StrJoin(once, ", "));
  }
  for (const Fallback& f : fallbacks) {
    absl::StrAppend(&out, "\n  fell back: ", f.node, " runs on ", f.to.ToString(),
                    " because ", f.from.ToString(), " cannot: ", f.reason);
  }
  return out;
}

absl::StatusOr<bool> AutoPlacementPass::Run(Graph& graph) {
  SY_ASSIGN_OR_RETURN(BackendDevice * target, registry_.GetDevice(target_));
  PlacementReport local;
  PlacementReport& report = report_ != nullptr ? *report_ : local;
  // One copy per (value, device), shared by every consumer.
  std::map<std::pair<ValueId, Device>, ValueId> copies;
  bool changed = false;

  for (NodeId i = 0; i < static_cast<NodeId>(graph.nodes().size()); ++i) {
    if (graph.node(i).op == "copy") continue;  // the user's own copies stay
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
        SY_ASSIGN_OR_RETURN(Tensor moved, v.constant->To(device, registry_));
        copied = graph.AddConstant(value_name, moved);
        copies[{id, device}] = copied;
        report.moves.push_back({value_name, from, device, bytes, false});
      } else {
        AttrMap to;
        to.Set("device", device.ToString());
        const std::string layer = graph.node(i).layer;
        const Device from = *v.device;
        const std::string value_name = v.name;
        const Shape shape = *v.shape;
        const int64_t bytes = ValueBytes(v);
        copied = graph.InsertNodeBefore(i, "copy", layer, {id}, std::move(to));
        Node& copy = graph.mutable_node(i);
        copy.name = absl::StrCat("copy:", value_name, "->", device.ToString());
        copy.device = device;
        Value& out = graph.mutable_value(copied);
        out.name = absl::StrCat(copy.name, ":0");
        out.shape = shape;
        out.device = device;
        copies[{id, device}] = copied;
        report.moves.push_back({value_name, from, device, bytes, true});
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
