#ifndef SWITCHYARD_ONNX_TOPOLOGICAL_SORT_H_
#define SWITCHYARD_ONNX_TOPOLOGICAL_SORT_H_

// ONNX requires a graph's nodes in topological order, but converters that
// rewrite models (float16 conversion, quantizers, graph surgery tools)
// often leave them out of order, and ONNX Runtime sorts such graphs. So
// does the importer, before converting: a node moves after the producers of
// everything it reads (its inputs and the names its subgraphs read from
// around them); nodes already in order keep their order.
//
//   SY_RETURN_IF_ERROR(SortNodes(*model.mutable_graph()));

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// Sorts `graph`'s nodes, and those of every subgraph inside it. A value
// produced by two nodes, or a cycle (naming the nodes in it), is
// InvalidArgument (the model is refused; a subgraph may be left sorted).
absl::Status SortNodes(onnx::GraphProto& graph);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_TOPOLOGICAL_SORT_H_
