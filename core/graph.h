#ifndef SWITCHYARD_CORE_GRAPH_H_
#define SWITCHYARD_CORE_GRAPH_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/attributes.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace switchyard {

using ValueId = int;
using NodeId = int;

// A constant whose memory its owner may give back while nothing reads it
// (core/releasable_weights.h). A backend that has made its own copy of the
// constant (a reorder into its layout) calls ReleaseIfUnread; one that reads
// the plain values calls MakeResident first. Core unpins it when lowering
// finds one node alone reads it.
class ConstantResidency {
 public:
  virtual ~ConstantResidency() = default;
  virtual absl::Status MakeResident() = 0;
  virtual void ReleaseIfUnread() = 0;
  virtual void Unpin() = 0;
};

// A value flowing through the graph: a graph input, a constant (a layer's
// parameter, bound to its tensor) or a node's output. Shape and device of a
// node output are filled in by shape inference and placement.
struct Value {
  ValueId id = -1;
  std::string name;                // "input", "features.0.weight", "features.0:0"
  std::optional<Shape> shape;      // known for inputs and constants
  DType dtype = DType::kFloat32;
  std::optional<Device> device;    // known for inputs and constants
  NodeId producer = -1;            // -1 for inputs and constants
  std::optional<Tensor> constant;  // parameters
  // Set for a constant whose memory may be given back (see above).
  std::shared_ptr<ConstantResidency> residency;
};

// One op application. `layer` is the path of the layer that emitted it
// ("features.3"), so errors point at the user's model, not at IR ids.
struct Node {
  NodeId id = -1;
  std::string name;  // unique: "features.3/conv2d"
  std::string op;    // an OpRegistry name: "conv2d"
  std::string layer;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  AttrMap attrs;
  std::optional<Device> device;  // set by placement
};

// The graph IR: values and nodes in topological order (a node may only use
// values created before it), plus the list of graph outputs.
//
//   Graph g;
//   ValueId x = g.AddInput("input", Shape({1, 4}), Device::Cpu());
//   ValueId w = g.AddConstant("fc.weight", weight_tensor);
//   ValueId y = g.AddNode("linear", "fc", {x, w}, AttrMap());
//   g.AddOutput(y);
class Graph {
 public:
  ValueId AddInput(const std::string& name, const Shape& shape,
                   const Device& device, DType dtype = DType::kFloat32);
  ValueId AddConstant(const std::string& name, const Tensor& tensor,
                      std::shared_ptr<ConstantResidency> residency = nullptr);
  // Returns the id of the node's single output. Input ids must exist.
  ValueId AddNode(const std::string& op, const std::string& layer,
                  std::vector<ValueId> inputs, AttrMap attrs);
  // A node with `num_outputs` outputs ("name:0", "name:1", ...); returns
  // their ids in order. Shape inference checks the count against the op.
  std::vector<ValueId> AddNodeWithOutputs(const std::string& op,
                                          const std::string& layer,
                                          std::vector<ValueId> inputs,
                                          AttrMap attrs, int num_outputs);
  void AddOutput(ValueId value) { outputs_.push_back(value); }

  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const Value& value(ValueId id) const { return values_[id]; }
  Value& mutable_value(ValueId id) { return values_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& mutable_node(NodeId id) { return nodes_[id]; }

  // Inserts a node before node `before` (passes use it for copies); the new
  // node's output is returned. Node ids are renumbered to stay in order.
  ValueId InsertNodeBefore(NodeId before, const std::string& op,
                           const std::string& layer,
                           std::vector<ValueId> inputs, AttrMap attrs);

  // Removes node `id` (passes use it to fold a node away): every reader of
  // its output i, nodes and graph outputs alike, reads `replacements[i]`
  // instead, which must be made before the first such reader. Node ids are
  // renumbered to stay in order; value ids never change, and the removed
  // outputs stay in values(), read by nothing. InvalidArgument when the
  // counts differ or a replacement is one of the removed outputs.
  absl::Status RemoveNode(NodeId id, absl::Span<const ValueId> replacements);

  // Shapes of a node's inputs; only after shape inference reached it.
  std::vector<Shape> InputShapes(const Node& node) const;

  // One line per node: "features.0/conv2d  conv2d  [1, 3, 224, 224] ... -> [..]  cpu:0".
  std::string ToText() const;
  // Graphviz DOT.
  std::string ToDot() const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
};

// "node 'features.0/conv2d' (op conv2d, layer 'features.0')": how every
// error about a node starts.
std::string DescribeNode(const Node& node);

// "[1, 3, 224, 224]" or "?" before shape inference.
std::string ShapeOrUnknown(const Value& value);
// "cpu:0" or "?" before placement.
std::string DeviceOrUnknown(const Value& value);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_GRAPH_H_
