#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_

// What the oneDNN device can run, node by node: an op of the op table
// (dnnl_op_table.h), the cases every primitive here shares (float32
// operands of rank 0 to 6 and one float32 output of rank 1 to 6, nothing
// empty; the 8-bit ops' rows take any dtype, several outputs and scalar
// outputs, the binary ops scalar outputs), then the op's own check from
// its row. Supports(), ClaimPartitions() and the partition
// builder all ask CheckNode, so a claimed node is always one the builder
// can lower.

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

// OK when the oneDNN device can run `node` (shape-inferred); else
// Unimplemented naming the node and why, e.g. "the dnnl backend (oneDNN)
// cannot run node 'avgpool/adaptive_avg_pool2d' (op adaptive_avg_pool2d):
// output 3x2 from 7x5 is neither an even division nor a whole-number
// upsampling; oneDNN has no primitive for overlapping adaptive windows".
absl::Status CheckNode(const Node& node, const Graph& graph);

// For the per-op checks: Unimplemented "the dnnl backend (oneDNN) cannot
// run <node>: <why>".
absl::Status Refuse(const Node& node, const std::string& why);

// OK when every operand of `node` from `first` on is a graph constant: the
// parameters oneDNN takes at primitive creation (weights, biases,
// batch-norm statistics) are reordered once, when the kernel is made.
absl::Status CheckConstants(const Node& node, const Graph& graph, size_t first);

// OK when oneDNN's int8 kernels on this CPU sum 8-bit products exactly: with
// VNNI (AVX-512 VNNI or AVX-VNNI), which accumulates four products in int32.
// Without it they add pairs of products in 16 bits (vpmaddubsw), which
// saturates on full-range data, so int8 nodes stay on the CPU backend.
absl::Status CheckExactInt8Products(const Node& node);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_
