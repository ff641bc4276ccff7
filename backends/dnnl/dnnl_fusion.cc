#include "backends/dnnl/dnnl_fusion.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_op_table.h"
#include "ops/elementwise_attrs.h"
#include "ops/op_names.h"

namespace switchyard {
namespace onednn {
namespace {

int ReadCount(const Graph& graph, ValueId v) {
  int n = 0;
  for (const Node& node : graph.nodes()) {
    n += static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), v));
  }
  n += static_cast<int>(
      std::count(graph.outputs().begin(), graph.outputs().end(), v));
  return n;
}

// Whether node `next` is the one and only reader of `v` (read once): then
// nobody ever sees `v` and the two nodes may become one primitive.
bool OnlyFeeds(const Graph& graph, ValueId v, const Node& next) {
  return std::count(next.inputs.begin(), next.inputs.end(), v) == 1 &&
         ReadCount(graph, v) == 1;
}

}  // namespace

std::vector<FusionGroup> PlanFusionGroups(const Graph& graph,
                                          const std::vector<NodeId>& nodes) {
  std::vector<FusionGroup> groups;
  const int n = static_cast<int>(nodes.size());
  for (int p = 0; p < n;) {
    FusionGroup g;
    g.first = p;
    const Node& head = graph.node(nodes[p]);
    const DnnlOp* row = FindDnnlOp(head.op);
    ValueId made = head.outputs[0];
    int q = p + 1;
    if (row != nullptr && row->sum_post_op && q < n) {
      const Node& next = graph.node(nodes[q]);
      if (next.op == op_names::kAdd && OnlyFeeds(graph, made, next) &&
          *graph.value(next.inputs[0]).shape ==
              *graph.value(next.inputs[1]).shape) {
        g.sum = true;
        made = next.outputs[0];
        ++q;
      }
    }
    if (row != nullptr && q < n) {
      const Node& next = graph.node(nodes[q]);
      const bool feeds = OnlyFeeds(graph, made, next);
      if (row->relu_post_op && next.op == op_names::kRelu && feeds) {
        g.relu = true;
        ++q;
      } else if (row->clip_post_op && next.op == ClipAttrs::kOp && feeds) {
        // Bounds oneDNN's clip takes as they are (CheckClip's rule).
        absl::StatusOr<ClipAttrs> clip = ClipAttrs::FromAttrMap(next.attrs);
        if (clip.ok() && clip->min <= clip->max) {
          g.clip = true;
          g.clip_low = static_cast<float>(clip->min);
          g.clip_high = static_cast<float>(clip->max);
          ++q;
        }
      }
    }
    g.count = q - p;
    groups.push_back(g);
    p = q;
  }
  return groups;
}

std::string FusionGroupName(const Graph& graph, const std::vector<NodeId>& nodes,
                            const FusionGroup& g) {
  std::vector<std::string> ops;
  for (int i = 0; i < g.count; ++i) ops.push_back(graph.node(nodes[g.first + i]).op);
  return absl::StrJoin(ops, "+");
}

}  // namespace onednn
}  // namespace switchyard
