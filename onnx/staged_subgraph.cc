// What Loop bodies and If branches share in the staged runner: a subgraph
// prepared once (the outer values it reads, its initializers, last uses),
// the StagedModel it runs as, and its own runner (segments cached by shape,
// like the model's). RunBranch: an If whose chosen branch needs run-time
// data inside (a NonZero, a shape computed from data, a Loop), run as a
// staged run of that branch on the model's device, its layers named
// "<if>/then/<node>" as when the branch is converted inline.

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "onnx/graph_conversion.h"
#include "onnx/onnx_tensor.h"
#include "onnx/staged_runner.h"

namespace switchyard {
namespace onnx_import {

absl::StatusOr<std::shared_ptr<const StagedRunner::Subgraph>>
StagedRunner::PreparedSubgraph(SubgraphKey key, const onnx::GraphProto& body) {
  {
    absl::MutexLock lock(&mu_);
    auto it = subgraphs_.find(key);
    if (it != subgraphs_.end()) return it->second;
  }
  auto prepared = std::make_shared<Subgraph>();
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto& in : body.input()) defined.insert(in.name());
  for (const onnx::TensorProto& t : body.initializer()) defined.insert(t.name());
  for (const onnx::NodeProto& inner : body.node()) {
    for (const std::string& out : inner.output()) defined.insert(out);
  }
  std::set<std::string> reads;
  CollectReads(body, reads);
  for (const std::string& name : reads) {
    if (defined.count(name) == 0) prepared->outer_reads.push_back(name);
  }
  for (const onnx::TensorProto& t : body.initializer()) {
    absl::StatusOr<HostArray> value = ReadTensorProto(t, "");
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat("initializer '", t.name(), "': ",
                                       value.status().message()));
    }
    prepared->constants[t.name()] = std::make_shared<const HostArray>(*std::move(value));
  }
  for (int q = 0; q < body.node_size(); ++q) {
    for (const std::string& name : NodeReads(body.node(q))) prepared->last_use[name] = q;
  }
  for (const onnx::ValueInfoProto& out : body.output()) {
    prepared->last_use[out.name()] = body.node_size();
  }
  prepared->consumers = std::make_shared<const ConsumerSets>(CollectConsumers(body));
  absl::MutexLock lock(&mu_);
  return subgraphs_.emplace(key, std::move(prepared)).first->second;
}

StagedModel StagedRunner::SubgraphModel(const StagedModel& model,
                                        const onnx::GraphProto& graph,
                                        const Subgraph& prepared,
                                        const std::string& scope) {
  StagedModel sub = model;
  sub.graph = &graph;
  sub.input_names.clear();
  sub.output_names.clear();
  for (const onnx::ValueInfoProto& out : graph.output()) {
    sub.output_names.push_back(out.name());
  }
  sub.last_use = &prepared.last_use;
  sub.consumers = prepared.consumers;
  sub.add_constants = [outer = model.add_constants, &prepared](ConversionState& state) {
    outer(state);
    for (const auto& [name, value] : prepared.constants) {
      ValueEntry e;
      e.type = {value->shape, value->dtype};
      e.host = value;
      state.env[name] = state.Add(std::move(e));
    }
  };
  sub.name_scope = absl::StrCat(model.name_scope, scope);
  sub.depth = model.depth + 1;
  return sub;
}

StagedRunner& StagedRunner::SubgraphRunner(SubgraphKey key) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<StagedRunner>& runner = subgraph_runners_[key];
  if (runner == nullptr) {
    runner = std::make_unique<StagedRunner>(max_plans_);
    runner->set_max_loop_iterations(max_loop_iterations_);
  }
  return *runner;
}

absl::StatusOr<StagedRunner::ControlFlowNode> StagedRunner::EnterControlFlow(
    const StagedModel& model, int p) {
  const onnx::NodeProto& node = model.graph->node(p);
  ControlFlowNode site{node, NodeWhere(node, model.opset),
                       node.name().empty() ? node.op_type() : node.name()};
  if (model.depth + 1 >= kMaxSubgraphDepth) {
    return site.Fail(absl::InvalidArgumentError(absl::StrCat(
        "subgraphs (Loop bodies, If branches) are nested more than ", kMaxSubgraphDepth,
        " deep")));
  }
  return site;
}

std::string StagedRunner::NestedTrace(std::string heading,
                                      const std::vector<std::string>& inner) {
  absl::StrAppend(&heading, "\n");
  for (const std::string& line : inner) {
    for (absl::string_view part : absl::StrSplit(line, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&heading, "  ", part, "\n");
    }
  }
  return heading;
}

absl::Status StagedRunner::RunBranch(const StagedModel& model, int p, CarriedMap& carried,
                                     const RunOptions& options,
                                     std::vector<std::string>* trace) {
  SY_ASSIGN_OR_RETURN(const ControlFlowNode site, EnterControlFlow(model, p));
  const onnx::NodeProto& node = site.proto;
  const std::string& layer = site.layer;
  auto fail = [&](const absl::Status& s) { return site.Fail(s); };
  // The condition is on the host already: converting the If inline asked
  // for it before the branch asked for more.
  absl::StatusOr<Carried> cond_value = Lookup(model, node.input(0), carried);
  if (!cond_value.ok()) return fail(cond_value.status());
  absl::StatusOr<int64_t> cond =
      ScalarOnHost(model, node.input(0), *cond_value, layer, options);
  if (!cond.ok()) return fail(cond.status());
  const bool take_then = *cond != 0;
  const char* chosen = take_then ? "then_branch" : "else_branch";
  const onnx::GraphProto* branch = nullptr;
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == chosen && a.has_g()) branch = &a.g();
  }
  if (branch == nullptr) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("attribute '", chosen, "' (a graph) is missing")));
  }
  if (branch->output_size() != node.output_size()) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        chosen, " has ", branch->output_size(), " outputs; the If node has ",
        node.output_size())));
  }
  const SubgraphKey key{p, take_then ? 0 : 1};
  absl::StatusOr<std::shared_ptr<const Subgraph>> prepared = PreparedSubgraph(key, *branch);
  if (!prepared.ok()) return fail(prepared.status());
  const StagedModel branch_model = SubgraphModel(
      model, *branch, **prepared, absl::StrCat(layer, take_then ? "/then/" : "/else/"));
  CarriedMap in;  // the outer values the branch reads
  for (const std::string& name : (*prepared)->outer_reads) {
    auto it = carried.find(name);
    if (it != carried.end()) in[name] = it->second;
  }
  std::vector<std::string> branch_trace;
  absl::StatusOr<std::vector<Carried>> out = SubgraphRunner(key).RunCarried(
      branch_model, std::move(in), options, trace != nullptr ? &branch_trace : nullptr);
  if (!out.ok()) {
    return fail(absl::Status(out.status().code(), absl::StrCat("in ", layer, "/",
                                                               take_then ? "then" : "else",
                                                               ": ", out.status().message())));
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (!node.output(i).empty()) carried[node.output(i)] = (*out)[i];
  }
  if (trace != nullptr) {
    trace->push_back(NestedTrace(absl::StrCat(site.where, ": its ", chosen,
                                              " needs run-time data, so it ran as a staged run:"),
                                 branch_trace));
  }
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace switchyard
