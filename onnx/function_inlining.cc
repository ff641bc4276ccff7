#include "onnx/function_inlining.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "google/protobuf/unknown_field_set.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Fields newer than Debian's onnx 1.12 messages, which keep them as unknown
// bytes: FunctionProto.attribute_proto (11, attribute defaults, IR 9) and
// overload (13, IR 10), NodeProto.overload (8, IR 10).
constexpr int kFunctionAttributeProto = 11;
constexpr int kFunctionOverload = 13;
constexpr int kNodeOverload = 8;

// The length-delimited payloads of field `number` among a message's
// unknown fields.
std::vector<std::string> UnknownField(const google::protobuf::UnknownFieldSet& unknown,
                                      int number) {
  std::vector<std::string> payloads;
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& f = unknown.field(i);
    if (f.number() == number &&
        f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      payloads.push_back(f.length_delimited());
    }
  }
  return payloads;
}

std::string FirstOr(const std::vector<std::string>& values) {
  return values.empty() ? std::string() : values[0];
}

bool IsDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

int DefaultOpset(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& opsets) {
  for (const onnx::OperatorSetIdProto& o : opsets) {
    if (IsDefaultDomain(o.domain())) return static_cast<int>(o.version());
  }
  return 0;
}

struct Function {
  const onnx::FunctionProto* proto = nullptr;
  std::map<std::string, onnx::AttributeProto> defaults;
  std::string label;  // "domain.name" for errors
};

using Key = std::tuple<std::string, std::string, std::string>;  // domain, name, overload

// Renames every name in `graph` (a subgraph of a function body) that the
// caller's scope renamed; names the subgraph defines itself are its own
// (ONNX forbids shadowing), so they are not in `names`.
void RenameInGraph(onnx::GraphProto& graph, const std::map<std::string, std::string>& names);

void RenameNode(onnx::NodeProto& node, const std::map<std::string, std::string>& names) {
  for (std::string& in : *node.mutable_input()) {
    auto it = names.find(in);
    if (!in.empty() && it != names.end()) in = it->second;
  }
  for (std::string& out : *node.mutable_output()) {
    auto it = names.find(out);
    if (!out.empty() && it != names.end()) out = it->second;
  }
  for (onnx::AttributeProto& a : *node.mutable_attribute()) {
    if (a.has_g()) RenameInGraph(*a.mutable_g(), names);
    for (onnx::GraphProto& g : *a.mutable_graphs()) RenameInGraph(g, names);
  }
}

void RenameInGraph(onnx::GraphProto& graph, const std::map<std::string, std::string>& names) {
  for (onnx::NodeProto& node : *graph.mutable_node()) RenameNode(node, names);
  for (onnx::ValueInfoProto& out : *graph.mutable_output()) {
    auto it = names.find(out.name());
    if (it != names.end()) out.set_name(it->second);
  }
}

class Inliner {
 public:
  Inliner(std::map<Key, Function> functions, int model_opset)
      : functions_(std::move(functions)), model_opset_(model_opset) {}

  absl::Status InlineGraph(onnx::GraphProto& graph) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    nodes.Swap(graph.mutable_node());
    for (onnx::NodeProto& node : nodes) {
      SY_RETURN_IF_ERROR(Emit(std::move(node), graph));
    }
    return absl::OkStatus();
  }

 private:
  // Appends `node` to `graph`, or the body of the function it calls.
  absl::Status Emit(onnx::NodeProto node, onnx::GraphProto& graph) {
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) SY_RETURN_IF_ERROR(InlineGraph(*a.mutable_g()));
      for (onnx::GraphProto& g : *a.mutable_graphs()) SY_RETURN_IF_ERROR(InlineGraph(g));
    }
    auto it = functions_.find(
        Key{IsDefaultDomain(node.domain()) ? "" : node.domain(), node.op_type(),
            FirstOr(UnknownField(node.unknown_fields(), kNodeOverload))});
    if (it == functions_.end()) {
      if (++emitted_ > kMaxInlinedNodes) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "inlining the model's functions makes more than ", kMaxInlinedNodes,
            " nodes; Switchyard refuses graphs that large"));
      }
      *graph.add_node() = std::move(node);
      return absl::OkStatus();
    }
    const Function& f = it->second;
    for (const std::string& open : stack_) {
      if (open == f.label) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", f.label, "' calls itself (", absl::StrJoin(stack_, " -> "), " -> ",
            f.label, "); ONNX functions may not be recursive"));
      }
    }
    if (static_cast<int>(stack_.size()) >= kMaxFunctionDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "functions call each other more than ", kMaxFunctionDepth, " deep at '",
          f.label, "'"));
    }
    stack_.push_back(f.label);
    absl::Status s = Expand(node, f, graph);
    stack_.pop_back();
    return s;
  }

  absl::Status Expand(const onnx::NodeProto& call, const Function& f, onnx::GraphProto& graph) {
    const onnx::FunctionProto& body = *f.proto;
    const std::string where = absl::StrCat(
        "node '", call.name(), "' calls function '", f.label, "'");
    if (call.input_size() > body.input_size() || call.output_size() > body.output_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " with ", call.input_size(), " inputs and ", call.output_size(),
          " outputs; the function declares ", body.input_size(), " and ",
          body.output_size()));
    }
    const int body_opset = DefaultOpset(body.opset_import());
    if (body_opset != 0 && body_opset != model_opset_) {
      return absl::UnimplementedError(absl::StrCat(
          "function '", f.label, "' imports ai.onnx opset ", body_opset, ", the model ",
          model_opset_, "; Switchyard reads a model's functions at the model's opset"));
    }
    // Names: the function's inputs and outputs become the caller's, every
    // other value of the body gets the call's prefix.
    // Unique per call: two unnamed calls in one body get the same name.
    std::string base = call.name().empty() ? f.label : call.name();
    std::string prefix = base + "/";
    for (int k = 1; !prefixes_.insert(prefix).second; ++k) {
      prefix = absl::StrCat(base, "_", k, "/");
    }
    std::map<std::string, std::string> names;
    for (int i = 0; i < body.input_size(); ++i) {
      names[body.input(i)] = i < call.input_size() ? call.input(i) : "";
    }
    std::map<std::string, bool> produced;
    for (const onnx::NodeProto& n : body.node()) {
      for (const std::string& out : n.output()) {
        if (!out.empty()) names.emplace(out, prefix + out);
        produced[out] = true;
      }
    }
    // A name the body reads but neither declares nor makes stays the
    // body's own (and missing), never a value of the caller's graph.
    for (const onnx::NodeProto& n : body.node()) {
      for (const std::string& in : n.input()) {
        if (!in.empty()) names.emplace(in, prefix + in);
      }
    }
    std::vector<onnx::NodeProto> passthrough;
    for (int j = 0; j < body.output_size(); ++j) {
      const std::string& out = body.output(j);
      const bool wanted = j < call.output_size() && !call.output(j).empty();
      if (!produced.count(out)) {
        bool is_input = false;
        for (const std::string& in : body.input()) is_input = is_input || in == out;
        if (!is_input) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": the function's output '", out,
              "' is made by no node of its body and is not one of its inputs"));
        }
        if (wanted) {  // an input passed straight through
          onnx::NodeProto identity;
          identity.set_op_type("Identity");
          identity.set_name(prefix + out + "/identity");
          identity.add_input(names[out]);
          identity.add_output(call.output(j));
          passthrough.push_back(std::move(identity));
        }
        continue;
      }
      if (wanted) names[out] = call.output(j);
    }
    for (const onnx::NodeProto& n : body.node()) {
      onnx::NodeProto copy = n;
      RenameNode(copy, names);
      copy.set_name(prefix + (n.name().empty() ? n.op_type() : n.name()));
      SY_RETURN_IF_ERROR(BindAttributes(call, f, copy));
      SY_RETURN_IF_ERROR(Emit(std::move(copy), graph));
    }
    for (onnx::NodeProto& n : passthrough) SY_RETURN_IF_ERROR(Emit(std::move(n), graph));
    return absl::OkStatus();
  }

  // Replaces each attribute reference (ref_attr_name) of `node` with the
  // caller's attribute of that name, else the function's default, else
  // drops it (ONNX: the attribute is then absent).
  absl::Status BindAttributes(const onnx::NodeProto& call, const Function& f,
                              onnx::NodeProto& node) {
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> bound;
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.ref_attr_name().empty()) {
        *bound.Add() = a;
        continue;
      }
      const onnx::AttributeProto* value = nullptr;
      for (const onnx::AttributeProto& given : call.attribute()) {
        if (given.name() == a.ref_attr_name()) value = &given;
      }
      auto def = f.defaults.find(a.ref_attr_name());
      if (value == nullptr && def != f.defaults.end()) value = &def->second;
      if (value == nullptr) continue;
      if (value->type() != a.type() && a.type() != onnx::AttributeProto::UNDEFINED &&
          value->type() != onnx::AttributeProto::UNDEFINED) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", call.name(), "' gives function '", f.label, "' attribute '",
            a.ref_attr_name(), "' of type ", value->type(), "; its body reads it as type ",
            a.type()));
      }
      onnx::AttributeProto* b = bound.Add();
      *b = *value;
      b->set_name(a.name());
    }
    node.mutable_attribute()->Swap(&bound);
    return absl::OkStatus();
  }

  std::map<Key, Function> functions_;
  int model_opset_;
  std::vector<std::string> stack_;
  int64_t emitted_ = 0;
  std::set<std::string> prefixes_;
};

}  // namespace

absl::Status InlineFunctions(onnx::ModelProto& model) {
  if (model.functions_size() == 0) return absl::OkStatus();
  std::map<Key, Function> functions;
  for (const onnx::FunctionProto& proto : model.functions()) {
    Function f;
    f.proto = &proto;
    f.label = proto.domain().empty() ? proto.name() : absl::StrCat(proto.domain(), ".", proto.name());
    for (const std::string& bytes :
         UnknownField(proto.unknown_fields(), kFunctionAttributeProto)) {
      onnx::AttributeProto a;
      if (!a.ParseFromString(bytes) || a.name().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", f.label, "' has an attribute default that does not parse"));
      }
      f.defaults[a.name()] = std::move(a);
    }
    const Key key{IsDefaultDomain(proto.domain()) ? "" : proto.domain(), proto.name(),
                  FirstOr(UnknownField(proto.unknown_fields(), kFunctionOverload))};
    if (!functions.emplace(key, std::move(f)).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the model defines function '", proto.name(), "' of domain '", proto.domain(),
          "' twice"));
    }
  }
  Inliner inliner(std::move(functions), DefaultOpset(model.opset_import()));
  return inliner.InlineGraph(*model.mutable_graph());
}

}  // namespace onnx_import
}  // namespace switchyard
