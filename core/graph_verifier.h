#ifndef SWITCHYARD_CORE_GRAPH_VERIFIER_H_
#define SWITCHYARD_CORE_GRAPH_VERIFIER_H_

#include "absl/status/status.h"
#include "core/graph.h"

namespace switchyard {

// The graph's invariants, as XLA's HloVerifier checks them between passes:
// ids match positions, every operand exists and is made before its reader
// (inputs, constants, or an earlier node's output), each node's outputs are
// its own (producer set, made once), graph inputs are inputs and graph
// outputs exist. Values that were shape-inferred agree with their constant's
// tensor; a placed node's outputs are on its device, and every operand of a
// placed node other than a copy is on that device too.
//
// PassPipeline runs it after every pass, so a pass
// that breaks the graph fails at that pass, not in a kernel later.
//
//   absl::Status ok = VerifyGraph(graph);  // Internal, naming the broken part
absl::Status VerifyGraph(const Graph& graph);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_GRAPH_VERIFIER_H_
