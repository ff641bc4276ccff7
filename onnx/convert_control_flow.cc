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

// "float32 rank 2", or what of it the value info declares.
std::string Declared(const onnx::ValueInfoProto& info) {
  const onnx::TypeProto::Tensor& t = info.type().tensor_type();
  absl::StatusOr<DType> dtype = DTypeFromOnnx(t.elem_type());
  return absl::StrCat(dtype.ok() ? DTypeName(*dtype) : absl::StrCat("type ", t.elem_type()),
                      t.has_shape() ? absl::StrCat(" rank ", t.shape().dim_size()) : "");
}

// Both branches must declare outputs of one dtype (ONNX's If gives its
// outputs one type whichever branch runs): a model whose branches disagree
// is refused whichever branch this run takes. Ranks may differ: PyTorch's
// exporter writes such Ifs (torchvision's RoI pooling, a [N] and an [N, 1]
// branch) and ONNX Runtime runs them.
absl::Status CheckBranchesAgree(const onnx::GraphProto& then_branch,
                                const onnx::GraphProto& else_branch) {
  if (then_branch.output_size() != else_branch.output_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "then_branch has ", then_branch.output_size(), " outputs, else_branch ",
        else_branch.output_size(), "; both must produce the If node's outputs"));
  }
  for (int i = 0; i < then_branch.output_size(); ++i) {
    const onnx::ValueInfoProto& a = then_branch.output(i);
    const onnx::ValueInfoProto& b = else_branch.output(i);
    if (!a.type().has_tensor_type() || !b.type().has_tensor_type()) continue;
    const auto& ta = a.type().tensor_type();
    const auto& tb = b.type().tensor_type();
    const bool dtype_differs = ta.elem_type() != 0 && tb.elem_type() != 0 &&
                               ta.elem_type() != tb.elem_type();
    if (dtype_differs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output ", i, " is ", Declared(a), " ('", a.name(), "') in then_branch but ",
          Declared(b), " ('", b.name(), "') in else_branch; both branches must give "
          "each output one dtype"));
    }
  }
  return absl::OkStatus();
}

// The chosen branch's outputs must be what it declares.
absl::Status CheckBranchOutputs(NodeContext& ctx, const onnx::GraphProto& branch,
                                const std::vector<Val>& outputs, const char* chosen) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const onnx::TypeProto& type = branch.output(static_cast<int>(i)).type();
    if (!type.has_tensor_type() || type.tensor_type().elem_type() == 0) continue;
    absl::StatusOr<DType> declared = DTypeFromOnnx(type.tensor_type().elem_type());
    if (!declared.ok()) return declared.status();
    const TensorType& got = ctx.Type(outputs[i]);
    if (got.dtype != *declared) {
      return absl::InvalidArgumentError(absl::StrCat(
          chosen, " output ", i, " ('", branch.output(static_cast<int>(i)).name(),
          "') is declared ", DTypeName(*declared), " but its node makes ",
          DTypeName(got.dtype)));
    }
  }
  return absl::OkStatus();
}

absl::Status ConvertIf(NodeContext& ctx) {
  const onnx::AttributeProto* then_attr = ctx.Attr("then_branch");
  const onnx::AttributeProto* else_attr = ctx.Attr("else_branch");
  if (then_attr != nullptr && then_attr->has_g() && else_attr != nullptr &&
      else_attr->has_g()) {
    SY_RETURN_IF_ERROR(CheckBranchesAgree(then_attr->g(), else_attr->g()));
  }
  SY_ASSIGN_OR_RETURN(double cond, ctx.ConstScalar(0, "cond"));
  const bool take_then = cond != 0;
  const char* chosen = take_then ? "then_branch" : "else_branch";
  const onnx::AttributeProto* branch = take_then ? then_attr : else_attr;
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
  SY_RETURN_IF_ERROR(CheckBranchOutputs(ctx, branch->g(), outputs, chosen));
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
