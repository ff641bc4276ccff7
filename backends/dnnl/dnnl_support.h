#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_

// What the oneDNN device can run, node by node: the ops it maps onto oneDNN
// primitives and, per op, the attribute and shape cases the primitives
// cover. Supports(), ClaimPartitions() and the partition builder all ask
// this one function, so a claimed node is always one the builder can lower.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

// The ops the device runs, sorted (for messages and docs).
const std::vector<std::string>& SupportedOps();

// OK when the oneDNN device can run `node` (shape-inferred); else
// Unimplemented naming the node and why, e.g. "the dnnl backend (oneDNN)
// cannot run node 'avgpool/adaptive_avg_pool2d' (op adaptive_avg_pool2d):
// output 3x2 from 7x5 is neither an even division nor a whole-number
// upsampling; oneDNN has no primitive for overlapping adaptive windows".
absl::Status CheckNode(const Node& node, const Graph& graph);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_SUPPORT_H_
