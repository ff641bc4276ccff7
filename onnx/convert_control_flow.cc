// Converters for ops that carry subgraphs. If converts the branch its
// condition picks, inline: its nodes join the graph around it (named
// "<if>/then/<node>"), read that graph's values by name, and run on the
// model's device like every other node. A condition computed at run time is
// a request for its contents (a staged run ends its segment there), so the
// branch is chosen from this run's data. A branch that itself needs
// run-time data is handed to the staged runner, which runs it as a staged
// run of its own (onnx/staged_subgraph.cc).
//
// Loop is driven by the staged runner (onnx/staged_loop.cc): each iteration
// is a staged run of the body on the model's device, whose condition and
// trip count decide whether another follows. Here the node is checked and
// handed over.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/converter_registry.h"
#include "onnx/graph_conversion.h"
#include "onnx/loop_node.h"
#include "onnx/onnx_tensor.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Converts `branch`'s nodes in a scope that sees the values around it and
// returns its outputs; the names it defines leave scope after.
absl::StatusOr<std::vector<Val>> ConvertSubgraph(NodeContext& ctx,
                                                 const onnx::GraphProto& branch,
                                                 const std::string& scope) {
  ConversionState& state = ctx.state();
  if (state.depth >= kMaxSubgraphDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "subgraphs are nested more than ", kMaxSubgraphDepth, " deep"));
  }
  if (branch.input_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        scope, " declares ", branch.input_size(), " inputs; an If branch takes none"));
  }
  const std::map<std::string, Val> outer = state.env;
  const std::string outer_scope = state.name_scope;
  state.name_scope = absl::StrCat(outer_scope, scope, "/");
  ++state.depth;
  auto restore = [&] {
    state.env = outer;
    state.name_scope = outer_scope;
    --state.depth;
  };
  for (const onnx::TensorProto& t : branch.initializer()) {
    absl::StatusOr<HostArray> value = ReadTensorProto(t, "");
    if (!value.ok()) {
      restore();
      return absl::Status(value.status().code(),
                          absl::StrCat(scope, " initializer '", t.name(),
                                       "': ", value.status().message()));
    }
    state.env[t.name()] = ctx.Constant(std::move(*value));
  }
  NoteConsumers(branch, state);
  for (const onnx::NodeProto& node : branch.node()) {
    absl::Status converted = ConvertNode(node, ctx.opset(), state);
    if (!converted.ok()) {
      restore();
      if (state.need != ConversionState::Need::kNone) {
        // A request from inside the branch: its value has no name in the
        // graph around, so the staged runner runs the whole branch as a
        // staged run of its own instead (StagedRunner::RunBranch).
        state.need = ConversionState::Need::kNone;
        if (state.run_time_data_allowed) {
          state.need = ConversionState::Need::kBranch;
          state.needed.clear();
          return absl::UnavailableError(absl::StrCat(
              "in ", scope, ": ", converted.message(),
              "; the branch runs as a staged run of its own"));
        }
        return absl::UnimplementedError(absl::StrCat(
            "in ", scope, ": ", converted.message(), "; a single static plan "
            "cannot hold it: OnnxModel::Run (switchyard run) runs such models "
            "in segments"));
      }
      return absl::Status(converted.code(),
                          absl::StrCat("in ", scope, ": ", converted.message()));
    }
  }
  std::vector<Val> outputs;
  for (const onnx::ValueInfoProto& out : branch.output()) {
    auto it = state.env.find(out.name());
    if (it == state.env.end()) {
      restore();
      return absl::InvalidArgumentError(absl::StrCat(
          scope, " output '", out.name(), "' is produced by no node"));
    }
    outputs.push_back(it->second);
  }
  restore();
  return outputs;
}

absl::Status ConvertIf(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(double cond, ctx.ConstScalar(0, "cond"));
  const bool take_then = cond != 0;
  const char* chosen = take_then ? "then_branch" : "else_branch";
  const onnx::AttributeProto* branch = ctx.Attr(chosen);
  ctx.Ignore(take_then ? "else_branch" : "then_branch");
  if (branch == nullptr || !branch->has_g()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", chosen, "' (a graph) is missing"));
  }
  const std::string scope = absl::StrCat(
      ctx.node().name().empty() ? "If" : ctx.node().name(), "/",
      take_then ? "then" : "else");
  SY_ASSIGN_OR_RETURN(std::vector<Val> outputs,
                      ConvertSubgraph(ctx, branch->g(), scope));
  if (static_cast<int>(outputs.size()) != ctx.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        chosen, " has ", outputs.size(), " outputs; the If node has ",
        ctx.num_outputs()));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    SY_RETURN_IF_ERROR(ctx.SetOutput(i, outputs[i]));
  }
  return absl::OkStatus();
}

SY_REGISTER_ONNX_CONVERTER("If", ConvertIf);

absl::Status ConvertLoop(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(ReadLoopSignature(ctx.node()).status());
  ctx.Ignore("body");
  ConversionState& state = ctx.state();
  if (!state.run_time_data_allowed) {
    return absl::UnimplementedError(
        "a Loop runs its body once per iteration, which a single static plan "
        "(Module::Forward, Compiled) cannot hold; OnnxModel::Run (switchyard "
        "run) runs such models in segments");
  }
  state.need = ConversionState::Need::kLoop;
  return absl::UnavailableError("a Loop runs in the staged runner, one body run "
                                "per iteration");
}

SY_REGISTER_ONNX_CONVERTER("Loop", ConvertLoop, 0);  // M and cond may be ""

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
