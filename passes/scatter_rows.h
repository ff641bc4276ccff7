#ifndef SWITCHYARD_PASSES_SCATTER_ROWS_H_
#define SWITCHYARD_PASSES_SCATTER_ROWS_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/graph.h"
#include "core/pass.h"

namespace switchyard {

// The pass's name: CompileOptions::disabled_passes and dump_after take it.
inline constexpr char kScatterRowsPassName[] = "scatter-rows";

// Scatters whole rows as rows. torchvision's MultiScaleRoIAlign exports
// each level's merge as
//
//   i = expand(j, updates' shape)             j: [K, 1, ..., 1] row numbers
//   y = scatter_elements(data, i, updates)    axis 0
//
// which materializes one index per element (a detector's 1000 RoIs x 256 x
// 7 x 7: 100 MB of int64 a forward, written and read back). When every
// index of an updates row is that row's j and updates' rows are data's,
// that is y = scatter_nd(data, reshape(j, [K, 1]), updates): the same
// elements in the same order (duplicates combine, or the last row wins,
// either way), one index per row. The scatter is rewritten in place (y
// keeps its id and name); the expand goes when nothing else reads it.
//
// Strict: axis 0 (or -rank), j of data's rank with every dim but the first
// 1 and an integer dtype, the expand's output exactly updates' shape, and
// updates' dims after the first data's. Otherwise nothing changes.
// Run after shape inference and before placement; linking //passes
// registers it.
class ScatterRowsPass : public Pass {
 public:
  std::string name() const override { return kScatterRowsPassName; }
  absl::StatusOr<bool> Run(Graph& graph) override;
};

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_SCATTER_ROWS_H_
