#include "core/passes/float32_fallback.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/copy_op.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace {

// Core names the op by its string: the cast op is defined above core
// (ops/cast.cc), with its dtype in attribute "to".
constexpr char kCastOp[] = "cast";
constexpr char kScope[] = "float32_fallback";

bool IsNarrow(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16;
}

// An attribute naming float16 or bfloat16 (cast's "to", a fill's "dtype"):
// the node makes that dtype on purpose, so float32 math would change it.
bool NamesNarrowDType(const Node& node) {
  for (const auto& [name, value] : node.attrs.values()) {
    if (const std::string* text = std::get_if<std::string>(&value)) {
      absl::StatusOr<DType> dtype = ParseDType(*text);
      if (dtype.ok() && IsNarrow(*dtype)) return true;
    }
  }
  return false;
}

// The dtype a cast node makes, if `node` is a cast.
std::optional<DType> CastTarget(const Node& node) {
  if (node.op != kCastOp) return std::nullopt;
  absl::StatusOr<std::string> to = node.attrs.GetString("to");
  if (!to.ok()) return std::nullopt;
  absl::StatusOr<DType> dtype = ParseDType(*to);
  if (!dtype.ok()) return std::nullopt;
  return *dtype;
}

// The narrow dtypes among a node's operands and outputs.
std::vector<DType> NarrowDTypes(const Node& node, const Graph& graph) {
  std::vector<DType> dtypes;
  auto add = [&](ValueId id) {
    const DType d = graph.value(id).dtype;
    if (IsNarrow(d) && std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) {
      dtypes.push_back(d);
    }
  };
  for (ValueId id : node.inputs) add(id);
  for (ValueId id : node.outputs) add(id);
  return dtypes;
}

// One node of a conversion chain: a cast, or a copy to `device`.
struct ChainStep {
  bool cast = true;
  std::optional<Device> device;  // where it runs; unset before placement
  DType out_dtype = DType::kFloat32;
  std::string suffix;  // "cast_in0", "cast_in0/copy_to_cpu"
};

}  // namespace

bool Float32FallbackPass::CanCast(const Device& device, DType from, DType to) {
  const auto key = std::make_tuple(device.ToString(), from, to);
  auto found = can_cast_.find(key);
  if (found != can_cast_.end()) return found->second;
  bool ok = false;
  absl::StatusOr<BackendDevice*> backend = registry_.GetDevice(device);
  if (backend.ok()) {
    // Capability asks about a node in a graph: a one-cast graph.
    Graph probe;
    const ValueId x = probe.AddInput("x", Shape({1}), device, from);
    AttrMap attrs;
    attrs.Set("to", DTypeName(to));
    const ValueId y = probe.AddNode(kCastOp, "", {x}, std::move(attrs));
    Value& out = probe.mutable_value(y);
    out.shape = Shape({1});
    out.dtype = to;
    out.device = device;
    probe.mutable_node(0).device = device;
    ok = (*backend)->Supports(probe.node(0), probe).ok();
  }
  can_cast_.emplace(key, ok);
  return ok;
}

absl::StatusOr<bool> Float32FallbackPass::Run(Graph& graph) {
  fallback_nodes_.clear();
  const int num_nodes = static_cast<int>(graph.nodes().size());
  std::vector<DType> dtype_before;  // by value id, before any change
  bool any_narrow = false;
  for (const Value& v : graph.values()) {
    dtype_before.push_back(v.dtype);
    any_narrow |= IsNarrow(v.dtype);
  }
  if (!any_narrow) return false;

  // Whether `device` casts each of `narrow` to float32 and back.
  auto casts_both_ways = [&](const Device& device, const std::vector<DType>& narrow) {
    for (DType n : narrow) {
      if (!CanCast(device, n, DType::kFloat32) || !CanCast(device, DType::kFloat32, n)) {
        return false;
      }
    }
    return true;
  };
  // Where a node's casts run (after placement): its own device when that has
  // the cast kernels, else the CPU between copies; unset when neither does.
  auto cast_device = [&](const Device& device,
                         const std::vector<DType>& narrow) -> std::optional<Device> {
    for (const Device& d : {device, Device::Cpu()}) {
      if (casts_both_ways(d, narrow)) return d;
    }
    return std::nullopt;
  };

  // Decide first, on the graph as it is: a node falls back when no device
  // it may run on runs it as it is, one runs it with every narrow value as
  // float32 (the same graph, retyped), and the casts have somewhere to run.
  Graph widened = graph;
  for (const Value& v : graph.values()) {
    if (IsNarrow(v.dtype)) widened.mutable_value(v.id).dtype = DType::kFloat32;
  }
  std::vector<bool> fallback(num_nodes, false);
  for (const Node& node : graph.nodes()) {
    if (node.op == kCopyOp || node.op == kCastOp || NamesNarrowDType(node)) {
      continue;
    }
    const std::vector<DType> narrow = NarrowDTypes(node, graph);
    if (narrow.empty()) continue;
    std::vector<Device> devices = candidates_;
    if (placed_) {
      if (!node.device.has_value()) continue;
      devices = {*node.device};
    }
    bool runs_as_is = false;
    std::optional<Device> widened_on;
    for (const Device& d : devices) {
      absl::StatusOr<BackendDevice*> backend = registry_.GetDevice(d);
      if (!backend.ok()) continue;
      if ((*backend)->Supports(node, graph).ok()) {
        runs_as_is = true;
        break;
      }
      if (!widened_on && (*backend)->Supports(widened.node(node.id), widened).ok()) {
        widened_on = d;
      }
    }
    if (runs_as_is || !widened_on) continue;
    bool castable = false;
    if (placed_) {
      castable = cast_device(*widened_on, narrow).has_value();
    } else {
      // Auto placement puts each cast on the target or its fallback.
      for (const Device& d : candidates_) castable |= casts_both_ways(d, narrow);
    }
    fallback[node.id] = castable;
  }

  // A narrow value the model itself cast down from float32 is read by
  // fallback nodes as that float32 value: the cast up they need cancels the
  // model's cast down, as ONNX Runtime's cast insertion removes such a pair
  // (a float16 model whose float32 input is cast down at its start, or
  // converted with some ops kept in float32 between casts).
  std::vector<ValueId> float32_source(graph.values().size(), -1);
  for (const Node& node : graph.nodes()) {
    const std::optional<DType> to = CastTarget(node);
    if (to.has_value() && IsNarrow(*to) && node.inputs.size() == 1 &&
        graph.value(node.inputs[0]).dtype == DType::kFloat32) {
      float32_source[node.outputs[0]] = node.inputs[0];
    }
  }

  // A fallback node's narrow output is cast down only for those who need
  // the narrow dtype: the graph's outputs and nodes that do not fall back.
  std::vector<bool> needs_narrow(graph.values().size(), false);
  for (ValueId id : graph.outputs()) needs_narrow[id] = true;
  for (const Node& node : graph.nodes()) {
    if (fallback[node.id]) continue;
    for (ValueId id : node.inputs) needs_narrow[id] = true;
  }

  // Inserts the nodes converting `src` (of dtype `from`) to `to` before
  // position `at`, for node `reason`; returns the converted value and how
  // many nodes went in.
  auto insert_chain = [&](NodeId at, ValueId src, DType from, DType to,
                          const Node& reason,
                          const std::string& role) -> std::pair<ValueId, int> {
    const std::optional<Shape> shape = graph.value(src).shape;
    const std::string base = absl::StrCat(reason.name, "/", kScope, "/cast_", role);
    std::vector<ChainStep> steps;
    if (!placed_) {
      steps.push_back({true, std::nullopt, to, ""});
    } else {
      const Device home = *reason.device;
      const Device where = *cast_device(home, {IsNarrow(from) ? from : to});
      if (where == home) {
        steps.push_back({true, home, to, ""});
      } else {
        steps.push_back({false, where, from, absl::StrCat("/copy_to_", where.type())});
        steps.push_back({true, where, to, ""});
        steps.push_back({false, home, to, "/copy_back"});
      }
    }
    const std::string layer =
        reason.layer.empty() ? kScope : absl::StrCat(reason.layer, "/", kScope);
    ValueId current = src;
    for (const ChainStep& step : steps) {
      AttrMap attrs;
      if (step.cast) {
        attrs.Set("to", DTypeName(step.out_dtype));
      } else {
        attrs.Set("device", step.device->ToString());
      }
      const ValueId out = graph.InsertNodeBefore(
          at, step.cast ? kCastOp : kCopyOp, layer, {current}, std::move(attrs));
      Node& added = graph.mutable_node(at);
      added.name = absl::StrCat(base, step.suffix);
      added.device = step.device;
      Value& value = graph.mutable_value(out);
      value.name = absl::StrCat(added.name, ":0");
      value.shape = shape;
      value.dtype = step.out_dtype;
      value.device = step.device;
      current = out;
      ++at;
    }
    return {current, static_cast<int>(steps.size())};
  };

  std::map<ValueId, ValueId> widened_value;  // narrow value -> its float32 twin
  NodeId at = 0;  // where original node `id` is now
  for (NodeId id = 0; id < num_nodes; ++id, ++at) {
    if (!fallback[id]) continue;
    const Node reason = graph.node(at);
    fallback_nodes_.push_back(reason.name);
    for (size_t k = 0; k < reason.inputs.size(); ++k) {
      const ValueId v = reason.inputs[k];
      if (!IsNarrow(dtype_before[v])) continue;
      auto found = widened_value.find(v);
      ValueId wide;
      if (found != widened_value.end()) {
        wide = found->second;
      } else if (float32_source[v] >= 0) {
        wide = float32_source[v];
      } else if (graph.value(v).constant.has_value()) {
        // Converted once, now: the node keeps reading a constant.
        const Tensor narrow = *graph.value(v).constant;
        const std::string name = absl::StrCat(graph.value(v).name, "/", kScope);
        SY_ASSIGN_OR_RETURN(std::vector<float> values, narrow.ToVector());
        SY_ASSIGN_OR_RETURN(
            Tensor converted,
            Tensor::FromVector(narrow.shape(), values, narrow.backend_device()));
        wide = graph.AddConstant(name, converted);
      } else {
        auto [out, added] = insert_chain(at, v, dtype_before[v], DType::kFloat32,
                                         reason, absl::StrCat("in", k));
        wide = out;
        at += added;
      }
      widened_value[v] = wide;
      graph.mutable_node(at).inputs[k] = wide;
    }
    for (size_t j = 0; j < reason.outputs.size(); ++j) {
      const ValueId o = reason.outputs[j];
      if (!IsNarrow(dtype_before[o])) continue;
      if (!needs_narrow[o]) {
        graph.mutable_value(o).dtype = DType::kFloat32;
        widened_value[o] = o;
        continue;
      }
      // The chain first reads `o`; then the node makes a new float32 value
      // and the chain's last node makes `o`, which keeps its id (graph
      // outputs and other readers name it) and its dtype.
      auto [last, added] = insert_chain(at + 1, o, DType::kFloat32, dtype_before[o],
                                        reason, absl::StrCat("out", j));
      graph.mutable_node(at).outputs[j] = last;
      graph.mutable_node(at + 1).inputs[0] = last;
      graph.mutable_node(at + added).outputs[0] = o;
      Value& wide = graph.mutable_value(last);
      wide.name = absl::StrCat(graph.value(o).name, "/float32");
      wide.dtype = DType::kFloat32;
      wide.device = reason.device;
      wide.producer = at;
      graph.mutable_value(o).producer = at + added;
      widened_value[o] = last;
      at += added;
    }
  }
  return !fallback_nodes_.empty();
}

}  // namespace switchyard
