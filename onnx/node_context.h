#ifndef SWITCHYARD_ONNX_NODE_CONTEXT_H_
#define SWITCHYARD_ONNX_NODE_CONTEXT_H_

// What a converter (onnx/convert_*.cc) sees of the ONNX node it turns into
// Switchyard ops: the node's inputs as values (with shape and dtype, and
// their data when known on the host), its attributes through getters that
// record what was read, and Emit, which adds an op to the graph or, when
// every operand is known on the host, computes it right away (constant
// folding: shape subgraphs such as Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape end up as attributes, never as graph nodes).
//
//   absl::Status ConvertRelu(NodeContext& ctx) {
//     SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("relu", {ctx.In(0)}, AttrMap()));
//     return ctx.SetOutput(0, y);
//   }

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "models/host_array.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// A result much larger than its operands (an Expand of a small host value,
// a large ConstantOfShape) is left to the graph beyond this many elements,
// even when every operand is known at import: folded, it would be a
// constant uploaded at every compile and held by every plan, once per input
// size (a detector's RoI indices and zero-filled RoI features: 150 MB per
// image size).
inline constexpr int64_t kMaxExpandedConstantElements = int64_t{1} << 16;

// A value during conversion: an index into the converter's table.
using Val = int;
inline constexpr Val kNoVal = -1;

// One value of the ONNX graph: its type, and where it is: a graph value, a
// host array (constant or folded), or a module parameter not yet added.
struct ValueEntry {
  TensorType type;
  std::optional<ValueId> id;
  std::shared_ptr<const HostArray> host;
  std::string parameter;  // non-empty: bound to this module parameter
  // For a padded result with a data-dependent number of rows (NMS's
  // selected indices): the int64 [1] value that says how many rows are
  // valid. Only graph outputs may be padded (OnnxModel::Run trims them).
  Val valid_rows = -1;
};

// Names a graph's nodes and outputs read (NoteConsumers).
struct ConsumerSets {
  std::set<std::string> consumed;       // by nodes or as graph outputs
  std::set<std::string> read_by_nodes;  // by nodes
};

// The state of one conversion, shared by every node's context.
class ConversionState {
 public:
  // `parameter_value` adds a module parameter to the graph as a constant.
  ConversionState(Graph& graph, BackendRegistry& registry, Device device,
                  std::string path,
                  std::function<absl::StatusOr<ValueId>(const std::string&)>
                      parameter_value);

  Graph& graph() { return graph_; }
  BackendRegistry& registry() { return registry_; }

  Val Add(ValueEntry entry);
  ValueEntry& entry(Val v) { return entries_[v]; }
  // The graph value of `v`, adding a constant for host arrays and
  // parameters on first use.
  absl::StatusOr<ValueId> GraphValue(Val v, const std::string& name);
  // Node names are the ONNX node's name, made unique.
  std::string UniqueLayer(const std::string& base);
  const std::string& path() const { return path_; }

  // Every value name some node or the graph's outputs read, and those that
  // nodes read (NoteConsumers fills them), plus `shared_consumers` when set:
  // the same sets computed once for a whole model (staged runs convert it
  // many times).
  std::set<std::string> consumed;
  std::set<std::string> read_by_nodes;
  std::shared_ptr<const ConsumerSets> shared_consumers;
  bool IsConsumed(const std::string& name) const;
  bool IsReadByNodes(const std::string& name) const;

  // The ONNX names in scope, each with its value (a subgraph's converter
  // copies it, so a branch sees the values of the graph around it).
  std::map<std::string, Val> env;
  // Inside a subgraph: the layer names' prefix ("if_1/then/") and how deep.
  std::string name_scope;
  int depth = 0;

  // Staged runs (onnx/staged_runner.h) convert a model in segments: a
  // converter that needs the data of a value computed at run time asks for
  // it, the runner ends the segment there, runs it, and converts the node
  // again with the data on the host. Off (the default), such a request is
  // an Unimplemented error, as a single static plan cannot serve it.
  bool run_time_data_allowed = false;
  // What the converter that just failed asked for.
  enum class Need {
    kNone,
    // The contents of `needed` (small: shapes, sizes, a condition), which
    // then decide the rest of the graph.
    kContents,
    // Every input of the node on the host: the node runs there on this
    // run's data (a data-dependent output shape: NonZero, NMS's rows).
    kHostInputs,
    // The node runs a subgraph once per iteration (Loop): the runner
    // drives it, each iteration a staged run of the body.
    kLoop,
    // An If whose chosen branch needs run-time data itself: the runner runs
    // the branch as a staged run of its own.
    kBranch,
  };
  Need need = Need::kNone;
  std::vector<std::string> needed;  // kContents: the ONNX names

 private:
  Graph& graph_;
  BackendRegistry& registry_;
  Device device_;
  std::string path_;
  std::function<absl::StatusOr<ValueId>(const std::string&)> parameter_value_;
  // A deque: adding a value (Emit, Constant) keeps every reference to the
  // others valid, so a converter may hold `const Shape& x = ctx.InShape(0)`
  // across the values it adds.
  std::deque<ValueEntry> entries_;
  std::set<std::string> layers_;
};

class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, int opset, std::vector<Val> inputs,
              ConversionState& state);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  int opset() const { return opset_; }

  // Inputs: ONNX leaves an optional input out with an empty name. Asking
  // whether an input is there, or reading it, marks it handled; after the
  // converter, an input present that nobody looked at is an Unimplemented
  // error (a form of the op the converter does not know, such as axes that
  // became an input in a later opset).
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool HasInput(int i) const {
    if (i >= num_inputs()) return false;
    looked_at_[i] = true;
    return inputs_[i] != kNoVal;
  }
  // Precondition: HasInput(i).
  Val In(int i) const {
    looked_at_[i] = true;
    return inputs_[i];
  }
  // Marks an input the converter accepts and ignores (Dropout's ratio).
  void IgnoreInput(int i) {
    if (i < num_inputs()) looked_at_[i] = true;
  }
  // The indices of inputs present that the converter never looked at.
  std::vector<int> UnreadInputs() const;
  const TensorType& Type(Val v) { return state_.entry(v).type; }
  const Shape& InShape(int i) { return Type(In(i)).shape; }
  // The input's data, when known on the host (nullptr otherwise).
  const HostArray* Host(Val v) { return state_.entry(v).host.get(); }
  // An input that must be known on the host (a shape, axes, pads), as
  // integers; InvalidArgument naming it when it is computed at run time.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, const char* what);
  // An input that must be known on the host (Resize's scales), each element
  // as double whatever its dtype; as ConstInts when computed at run time.
  absl::StatusOr<std::vector<double>> ConstDoubles(int i, const char* what);
  // A scalar input known on the host (Clip's min), as double.
  absl::StatusOr<double> ConstScalar(int i, const char* what);
  // For ops whose output shape depends on their input data: OK when every
  // input is on the host; otherwise, in a staged run, asks for all of them
  // (ConversionState::Need::kHostInputs), and outside one, Unimplemented.
  absl::Status RequireHostInputs();

  // Attributes. Each getter marks the attribute as handled; after the
  // converter, an attribute nobody read is an Unimplemented error. Wrong
  // types are InvalidArgument.
  bool HasAttr(const std::string& name) const;
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t default_value);
  absl::StatusOr<float> Float(const std::string& name, float default_value);
  absl::StatusOr<std::string> String(const std::string& name,
                                     const std::string& default_value);
  absl::StatusOr<std::vector<int64_t>> Ints(
      const std::string& name, std::vector<int64_t> default_value = {});
  absl::StatusOr<std::vector<float>> Floats(const std::string& name);
  const onnx::AttributeProto* Attr(const std::string& name);  // or nullptr
  // Marks attributes the converter accepts and ignores (Dropout's seed).
  void Ignore(const std::string& name) { read_.insert(name); }
  // The attributes present that no getter read.
  std::vector<std::string> UnreadAttributes() const;

  // Outputs.
  int num_outputs() const { return node_.output_size(); }
  bool OutputUsed(int i) const;
  absl::Status SetOutput(int i, Val v);
  bool AllOutputsSet() const;
  std::optional<Val> Output(int i) const { return outputs_[i]; }

  // Adds `op` reading `operands`; folds it on the host when every operand
  // is there and the result is small. InvalidArgument from the op's own
  // checks.
  absl::StatusOr<std::vector<Val>> Emit(const std::string& op,
                                        const std::vector<Val>& operands,
                                        const AttrMap& attrs,
                                        int num_outputs = 1);
  absl::StatusOr<Val> EmitOne(const std::string& op,
                              const std::vector<Val>& operands,
                              const AttrMap& attrs);
  // A host constant as a value.
  Val Constant(HostArray array);

  ConversionState& state() { return state_; }

 private:
  // The error for input `i` (described by `what`) that is computed at run
  // time; in a staged run, the request for its contents.
  absl::Status NeedContents(int i, const char* what);
  // Input i's data on the host; missing is InvalidArgument, computed at run
  // time is NeedContents.
  absl::StatusOr<const HostArray*> HostInput(int i, const char* what);

  absl::StatusOr<std::vector<Val>> Fold(const std::string& op,
                                        const std::vector<Val>& operands,
                                        const AttrMap& attrs, int num_outputs);

  const onnx::NodeProto& node_;
  int opset_;
  std::vector<Val> inputs_;
  mutable std::vector<bool> looked_at_;  // per input: HasInput or In called
  std::vector<std::optional<Val>> outputs_;
  ConversionState& state_;
  std::set<std::string> read_;
  std::string layer_;
};

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_NODE_CONTEXT_H_
