#include "onnx/graph_conversion.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnx/converter_registry.h"
#include "onnx/op_versions.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(prefix, ": ", s.message()));
}

// A node with fewer than its op's required inputs, or one of them left
// empty (""), is refused before its converter runs.
absl::Status CheckNodeArity(const onnx::NodeProto& node, int required) {
  for (int i = 0; i < required; ++i) {
    if (i >= node.input_size() || node.input(i).empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " is missing; ", node.op_type(), " needs at least ",
          required, " input(s), the node has ", node.input_size(),
          node.input_size() > i ? " with that one empty" : ""));
    }
  }
  if (node.output_size() == 0) {
    return absl::InvalidArgumentError("the node has no outputs");
  }
  return absl::OkStatus();
}

}  // namespace

std::string NodeWhere(const onnx::NodeProto& node, int opset) {
  const std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  return absl::StrCat("ONNX node '", node.name(), "' (op_type ", node.op_type(),
                      ", domain ", domain, ", opset ", opset, ")");
}

void CollectReads(const onnx::GraphProto& graph, std::set<std::string>& names) {
  for (const onnx::NodeProto& node : graph.node()) {
    std::set<std::string> reads = NodeReads(node);
    names.insert(reads.begin(), reads.end());
  }
  for (const onnx::ValueInfoProto& out : graph.output()) names.insert(out.name());
}

std::set<std::string> NodeReads(const onnx::NodeProto& node) {
  std::set<std::string> names;
  for (const std::string& in : node.input()) {
    if (!in.empty()) names.insert(in);
  }
  // A subgraph may read any value of the graph around it by name.
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g()) CollectReads(a.g(), names);
    for (const onnx::GraphProto& g : a.graphs()) CollectReads(g, names);
  }
  return names;
}

ConsumerSets CollectConsumers(const onnx::GraphProto& graph) {
  ConsumerSets sets;
  for (const onnx::NodeProto& node : graph.node()) {
    std::set<std::string> reads = NodeReads(node);
    sets.consumed.insert(reads.begin(), reads.end());
    sets.read_by_nodes.insert(reads.begin(), reads.end());
  }
  for (const onnx::ValueInfoProto& out : graph.output()) sets.consumed.insert(out.name());
  return sets;
}

void NoteConsumers(const onnx::GraphProto& graph, ConversionState& state) {
  ConsumerSets sets = CollectConsumers(graph);
  state.consumed.merge(sets.consumed);
  state.read_by_nodes.merge(sets.read_by_nodes);
}

absl::Status ConvertNode(const onnx::NodeProto& node, int opset,
                         ConversionState& state) {
  const std::string where = NodeWhere(node, opset);
  const auto& converters = Converters();
  auto converter = converters.find(ConverterKey(node.domain(), node.op_type()));
  if (converter == converters.end()) {
    return absl::UnimplementedError(absl::StrCat(
        where, " is not supported. Switchyard imports these ops (ai.onnx, and "
        "com.microsoft ops named so): ", absl::StrJoin(SupportedOpTypes(), ", ")));
  }
  // Versions from opset 18 on are ai.onnx's; other domains have version 1.
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  absl::Status version =
      default_domain ? CheckOpVersion(node.op_type(), opset) : absl::OkStatus();
  if (!version.ok()) return Prefixed(where, version);
  absl::Status arity = CheckNodeArity(node, converter->second.required_inputs);
  if (!arity.ok()) return Prefixed(where, arity);
  std::vector<Val> operands;
  for (const std::string& in : node.input()) {
    if (in.empty()) {
      operands.push_back(kNoVal);
      continue;
    }
    auto it = state.env.find(in);
    if (it == state.env.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": input '", in,
          "' is not a graph input, an initializer or the output of an "
          "earlier node (the graph is not topologically sorted, has a "
          "cycle, or the value is missing)"));
    }
    operands.push_back(it->second);
  }
  state.need = ConversionState::Need::kNone;
  state.needed.clear();
  NodeContext ctx(node, opset, std::move(operands), state);
  absl::Status converted = converter->second.convert(ctx);
  if (!converted.ok()) {
    if (state.need != ConversionState::Need::kNone) return converted;
    return Prefixed(where, converted);
  }
  std::vector<std::string> unread = ctx.UnreadAttributes();
  if (!unread.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        where, ": attribute ", absl::StrJoin(unread, ", "),
        " is not supported by Switchyard's ", node.op_type(), " import"));
  }
  std::vector<std::string> unread_inputs;
  for (int i : ctx.UnreadInputs()) {
    unread_inputs.push_back(absl::StrCat(i, " ('", node.input(i), "')"));
  }
  if (!unread_inputs.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        where, ": input ", absl::StrJoin(unread_inputs, ", "),
        " is not read by Switchyard's ", node.op_type(), " import at this opset"));
  }
  if (!ctx.AllOutputsSet()) {
    // A node may name more outputs than its op has (a malformed model), or
    // an optional output Switchyard's converter does not compute.
    std::vector<std::string> unset;
    for (int i = 0; i < node.output_size(); ++i) {
      if (!node.output(i).empty() && !ctx.Output(i).has_value()) {
        unset.push_back(absl::StrCat(i, " ('", node.output(i), "')"));
      }
    }
    return absl::UnimplementedError(absl::StrCat(
        where, ": output ", absl::StrJoin(unset, ", "), " is not produced by Switchyard's ",
        node.op_type(), " import (the node names ", node.output_size(),
        " outputs: more than ", node.op_type(), " has, or an optional one Switchyard does "
        "not compute; remove it from the node)"));
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty() || !ctx.Output(i).has_value()) continue;
    state.env[node.output(i)] = *ctx.Output(i);
  }
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace switchyard
