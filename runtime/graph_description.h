#ifndef SWITCHYARD_RUNTIME_GRAPH_DESCRIPTION_H_
#define SWITCHYARD_RUNTIME_GRAPH_DESCRIPTION_H_

// What `switchyard graph` shows and Python's session.graph() returns: a
// model traced for some input shapes, placed as a run would place it, with
// what each backend fuses, the buffer plan and what each kernel chose; or,
// for a model whose shapes are decided while it runs (no one graph), the
// steps of one run on seeded inputs.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "runtime/session.h"

namespace switchyard {
namespace runtime {

struct GraphDescription {
  // One graph: the placed graph as text and as Graphviz dot, auto
  // placement's report ("" under strict), the fused groups, the buffer
  // plan, and each kernel's choice ("" when it could not be lowered here;
  // `lowering_error` says why).
  std::string text, dot, placement_report;
  int partition_count = 0;
  std::string partitions;
  int buffer_slots = 0;
  int64_t planned_bytes = 0, unplanned_bytes = 0;
  std::string kernels, lowering_error;
  // Shapes decided while the model runs: the steps of one run instead.
  bool staged = false;
  std::string static_error;  // why there is no one graph
  std::vector<std::string> steps;
};

// How much to describe: the placed graph alone (text, dot and the
// placement report: `graph --format=dot`), or also what the backends fuse,
// the buffer plan and the kernels (lowering creates every kernel, the
// costly part).
enum class GraphDetail { kPlacedGraph, kEverything };

// `session`'s model (already on `device`) traced for `specs` and placed
// by `placement` targeting `device`; a staged model runs once on inputs
// seeded from `seed`.
absl::StatusOr<GraphDescription> DescribeGraph(Session& session,
                                               const std::vector<InputSpec>& specs,
                                               PlacementPolicy placement, const Device& device,
                                               uint64_t seed, BackendRegistry& registry,
                                               GraphDetail detail = GraphDetail::kEverything);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_GRAPH_DESCRIPTION_H_
