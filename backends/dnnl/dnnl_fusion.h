#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_

// Which consecutive nodes of a dnnl partition become one primitive: a head
// and the nodes its post-ops take, as the op table (dnnl_op_table.h) allows
// per head op: an add of a same-shape value after a conv2d (a sum post-op
// accumulating into the destination), then a relu (an eltwise post-op, or
// batch normalization's fuse_norm_relu) or a clip (ReLU6: an eltwise clip
// post-op). The value between two fused nodes
// must be read by the next node only (nobody else ever sees it).
//
//   conv2d -> add -> relu -> max_pool2d: {conv2d+add+relu}, {max_pool2d}

#include <string>
#include <vector>

#include "core/graph.h"

namespace switchyard {
namespace onednn {

struct FusionGroup {
  int first = 0;  // position in the partition's node list
  int count = 1;
  bool sum = false;   // conv2d + add: sum post-op
  bool relu = false;  // a relu folded into the group's primitive
  bool clip = false;  // a clip folded into the group's primitive, with its bounds
  float clip_low = 0, clip_high = 0;
};

// The groups of `nodes` (consecutive, each supported), in order.
std::vector<FusionGroup> PlanFusionGroups(const Graph& graph,
                                          const std::vector<NodeId>& nodes);

// "conv2d+add+relu".
std::string FusionGroupName(const Graph& graph, const std::vector<NodeId>& nodes,
                            const FusionGroup& g);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_
