#include "passes/scatter_rows.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/dtype.h"
#include "core/optimization_pass_registry.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/op_names.h"
#include "ops/shape_attrs.h"
#include "passes/pattern_match.h"

namespace switchyard {
namespace {

struct RowsMatch {
  NodeId expand = -1;
  ValueId rows = -1;  // j, [K, 1, ..., 1]
  bool expand_goes = false;
  ScatterReduction reduction = ScatterReduction::kNone;
};

std::optional<RowsMatch> Match(const Graph& graph, const ValueReaders& readers,
                               const Node& scatter) {
  if (scatter.op != op_names::kScatterElements || scatter.inputs.size() != 3 ||
      scatter.outputs.size() != 1) {
    return std::nullopt;
  }
  absl::StatusOr<ScatterElementsAttrs> attrs =
      ScatterElementsAttrs::FromAttrMap(scatter.attrs);
  const Value& data = graph.value(scatter.inputs[0]);
  const Value& updates = graph.value(scatter.inputs[2]);
  if (!attrs.ok() || !data.shape || !updates.shape) return std::nullopt;
  const int rank = data.shape->rank();
  if (rank < 1 || updates.shape->rank() != rank ||
      (attrs->axis != 0 && attrs->axis != -rank)) {
    return std::nullopt;
  }
  for (int d = 1; d < rank; ++d) {
    if (updates.shape->dim(d) != data.shape->dim(d)) return std::nullopt;
  }
  const std::optional<NodeId> expand_id =
      ProducerWithOp(graph, scatter.inputs[1], op_names::kExpand);
  if (!expand_id) return std::nullopt;
  const Node& expand = graph.node(*expand_id);
  const Value& expanded = graph.value(expand.outputs[0]);
  if (expand.inputs.size() != 1 || !expanded.shape ||
      *expanded.shape != *updates.shape) {
    return std::nullopt;
  }
  const Value& rows = graph.value(expand.inputs[0]);
  if (!rows.shape || rows.shape->rank() != rank ||
      rows.shape->dim(0) != updates.shape->dim(0) ||
      (rows.dtype != DType::kInt64 && rows.dtype != DType::kInt32)) {
    return std::nullopt;
  }
  for (int d = 1; d < rank; ++d) {
    if (rows.shape->dim(d) != 1) return std::nullopt;
  }
  RowsMatch m;
  m.expand = *expand_id;
  m.rows = expand.inputs[0];
  m.expand_goes = readers.SoleReader(expand.outputs[0]) == scatter.id;
  m.reduction = attrs->reduction;
  return m;
}

}  // namespace

// With the other fusions; it shares no nodes with them.
SY_REGISTER_OPTIMIZATION_PASS(130, ScatterRowsPass);

absl::StatusOr<bool> ScatterRowsPass::Run(Graph& graph) {
  bool changed = false;
  // Walking down from the end, as gelu fusion does: an edit inserts a
  // reshape above the scatter and may remove the expand, both above it.
  for (NodeId id = static_cast<NodeId>(graph.nodes().size()) - 1; id >= 0;
       --id) {
    id = std::min(id, static_cast<NodeId>(graph.nodes().size()) - 1);
    if (id < 0) break;
    if (graph.node(id).op != op_names::kScatterElements) continue;
    const ValueReaders readers(graph);  // recounted after every edit
    const std::optional<RowsMatch> m = Match(graph, readers, graph.node(id));
    if (!m) continue;
    const Value& rows = graph.value(m->rows);
    const Shape column({rows.shape->dim(0), 1});
    const DType dtype = rows.dtype;
    const std::optional<Device> device = rows.device;
    ReshapeAttrs to_column;
    to_column.shape = {column.dim(0), 1};
    const Node scatter = graph.node(id);
    const ValueId column_id = graph.InsertNodeBefore(
        id, op_names::kReshape, scatter.layer, {m->rows}, to_column.ToAttrMap());
    const NodeId reshape_id = id;
    Value& column_value = graph.mutable_value(column_id);
    column_value.shape = column;
    column_value.dtype = dtype;
    column_value.device = device;
    graph.mutable_node(reshape_id).name = scatter.name + "/rows";
    const NodeId scatter_id = id + 1;
    std::vector<NodeId> pattern = {scatter_id};
    if (m->expand_goes) pattern.push_back(m->expand);
    ScatterNdAttrs nd;
    nd.reduction = m->reduction;
    SY_RETURN_IF_ERROR(ReplacePattern(graph, pattern, scatter_id,
                                      op_names::kScatterNd,
                                      {scatter.inputs[0], column_id,
                                       scatter.inputs[2]},
                                      nd.ToAttrMap()));
    changed = true;
  }
  return changed;
}

}  // namespace switchyard
