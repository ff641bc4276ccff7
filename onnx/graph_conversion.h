#ifndef SWITCHYARD_ONNX_GRAPH_CONVERSION_H_
#define SWITCHYARD_ONNX_GRAPH_CONVERSION_H_

// Converting ONNX nodes one at a time, shared by the single-plan trace
// (OnnxModel::TraceValues), the staged runner (onnx/staged_runner.h) and the
// converters of subgraph-carrying ops (If's branches):
//
//   NoteConsumers(graph_proto, state);
//   for (const onnx::NodeProto& node : graph_proto.node()) {
//     SY_RETURN_IF_ERROR(ConvertNode(node, opset, state));
//   }

#include <set>
#include <string>

#include "absl/status/status.h"
#include "onnx/node_context.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// Subgraphs (If's branches) inside subgraphs, at most this deep.
inline constexpr int kMaxSubgraphDepth = 16;

// "ONNX node 'n' (op_type Relu, domain ai.onnx, opset 17)", for errors.
std::string NodeWhere(const onnx::NodeProto& node, int opset);

// Records in `state` which names nodes (also those inside subgraphs) and the
// graph's outputs read, so converters know which outputs are used.
void NoteConsumers(const onnx::GraphProto& graph, ConversionState& state);
// The same sets on their own, to compute once and share
// (ConversionState::shared_consumers).
ConsumerSets CollectConsumers(const onnx::GraphProto& graph);

// Converts `node`: reads its inputs from state.env, runs its converter and
// puts its outputs into state.env. Errors name the node. When the converter
// asked for run-time data (state.need), the status is its request, unprefixed.
absl::Status ConvertNode(const onnx::NodeProto& node, int opset,
                         ConversionState& state);

// Every name a node of `graph` (or of a subgraph inside it) reads.
void CollectReads(const onnx::GraphProto& graph, std::set<std::string>& names);
// The names `node` reads, including those its subgraphs read from around.
std::set<std::string> NodeReads(const onnx::NodeProto& node);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_GRAPH_CONVERSION_H_
