#ifndef SWITCHYARD_PASSES_PATTERN_MATCH_H_
#define SWITCHYARD_PASSES_PATTERN_MATCH_H_

// What the fusion passes that rebuild an op from its decomposition
// (layer_norm_fusion, gelu_fusion) ask of a graph while matching: who reads
// a value, whether a node is a given op over given operands, the value of a
// one-element constant, and the name of the node that replaces a pattern.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/graph.h"

namespace switchyard {

// The readers of every value of a graph at one moment (recount after an
// edit): the nodes that take it as an operand (once per operand slot) and
// whether it is a graph output.
class ValueReaders {
 public:
  explicit ValueReaders(const Graph& graph);

  // The one node reading `value`, when exactly one operand slot of one node
  // reads it and it is not a graph output; otherwise nullopt. An
  // intermediate of a pattern must have this reader and no other, or
  // fusing would take the value away from someone.
  std::optional<NodeId> SoleReader(ValueId value) const;
  // Every node reading `value` (a node twice when it reads it twice).
  const std::vector<NodeId>& Readers(ValueId value) const {
    return readers_[value];
  }
  bool IsGraphOutput(ValueId value) const { return is_output_[value]; }

 private:
  std::vector<std::vector<NodeId>> readers_;
  std::vector<bool> is_output_;
};

// The node producing `value` when it is op `op` with one output; nullopt
// for inputs, constants and other ops.
std::optional<NodeId> ProducerWithOp(const Graph& graph, ValueId value,
                                     const char* op);

// The operand of binary node `node` other than `known` (either order), or
// nullopt when `node` is not binary or does not read `known`. A node that
// reads `known` twice answers `known`.
std::optional<ValueId> OtherOperand(const Node& node, ValueId known);

// The value of `value` when it is a constant with exactly one element of a
// floating-point dtype (any shape: [], [1], [1, 1, 1]); otherwise nullopt.
// An error only when the constant's bytes cannot be read.
absl::StatusOr<std::optional<double>> OneElementFloatConstant(
    const Graph& graph, ValueId value);

// Whether `actual` is within `relative` of `expected` (relative to
// |expected|).
bool CloseTo(double actual, double expected, double relative);

// Name and layer for the node that replaces `pattern`: the layer path the
// pattern's nodes share up to a '/' ("/encoder/ln" for "/encoder/ln/Sub",
// "/encoder/ln/Div", ...; else the last node's layer), and name
// "<layer>/<op>", unless another node already has that name, then the last
// node's own name is kept.
struct FusedNodeName {
  std::string name;
  std::string layer;
};
FusedNodeName NameForFusedNode(const Graph& graph,
                               absl::Span<const NodeId> pattern,
                               NodeId last, const std::string& op);

// Rewrites node `last` into `op`(`operands`) with `attrs` (its output
// values, their ids and names, stay: readers and graph outputs are
// untouched), then removes every other node of `pattern`, whose outputs
// must have no reader outside the pattern. `last` must come after the
// others and after every operand's producer.
absl::Status ReplacePattern(Graph& graph, std::vector<NodeId> pattern,
                            NodeId last, const std::string& op,
                            std::vector<ValueId> operands, AttrMap attrs);

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_PATTERN_MATCH_H_
