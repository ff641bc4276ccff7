#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_

// Which consecutive nodes of a dnnl partition become one primitive: a head
// and the nodes its post-ops take, as the op table (dnnl_op_table.h) allows
// per head op:
//   - an add of a same-shape value after a conv2d (a sum post-op
//     accumulating into the destination);
//   - then one unary elementwise node (relu, clip, sigmoid, tanh, gelu,
//     hard_swish, ...: an eltwise post-op, dnnl_eltwise_algorithm.h), or
//     SiLU: sigmoid(c) and mul(c, sigmoid(c)) together (an eltwise swish
//     post-op writing the mul's output);
//   - for batch_norm, a following relu only (fuse_norm_relu);
//   - for matmul_integer, a cast of its int32 sums to float32 and a mul by
//     one scale (or one per column) first: the int8 product writes float
//     through output scales, then takes a bias and an eltwise as a float
//     matmul does (ONNX Runtime's MatMulIntegerToFloat).
// A value between two fused nodes must be read by the next node only
// (nobody else ever sees it); SiLU's c is read by exactly its sigmoid and
// its mul, and the sigmoid by the mul only.
//
//   conv2d -> add -> relu -> max_pool2d: {conv2d+add+relu}, {max_pool2d}
//   conv2d -> sigmoid -> mul:            {conv2d+silu}
//   mul(x, s [N,C,1,1]) -> conv2d 1x1 -> add: {mul+conv2d+add} (scaled_input)
//   matmul_integer -> cast -> mul(s) -> add(b) -> gelu: one group (dequantize)

#include <optional>
#include <string>
#include <vector>

#include "backends/dnnl/dnnl_eltwise_algorithm.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

struct FusionGroup {
  int first = 0;  // position in the partition's node list
  int count = 1;
  bool sum = false;  // conv2d + add: sum post-op
  // matmul + add of a constant [N]: the add's other operand is the bias
  // (dnnl_op_table.h, bias_add).
  bool bias = false;
  // The unary node (or SiLU pair) folded into the head's primitive.
  std::optional<EltwiseAlgorithm> eltwise;
  bool silu = false;  // eltwise is SiLU, from a sigmoid and a mul
  // concat -> batch_norm (-> relu: eltwise), the concat read by the norm
  // alone: one host pass (dnnl_concat_norm.h) where the layouts allow.
  bool concat_norm = false;
  // mul(x, s) with s one factor per image and channel ([N or 1, C, 1, 1]),
  // read by a 1x1 stride-1 conv2d alone (a squeeze-and-excitation block's
  // scaling, then its projection): the conv's weights are scaled instead
  // of x where that is cheaper (dnnl_scaled_conv.cc). The conv (node 1)
  // then takes its post-ops as a head does.
  bool scaled_input = false;
  // matmul_integer -> cast to float32 -> mul by a scale: nodes 1 and 2 are
  // the cast and the mul (dnnl_matmul_integer.cc).
  bool dequantize = false;
};

// `nodes` (a partition's, in graph order) with the nodes that sit between
// a matmul_integer's cast and the mul scaling it moved before the
// matmul_integer, when they read nothing the two made: ONNX Runtime's
// quantizer writes the scale product (a's scale times b's) there, and the
// group's nodes must be consecutive. The order stays topological.
std::vector<NodeId> OrderForFusion(const Graph& graph, std::vector<NodeId> nodes);

// The groups of `nodes` (consecutive, each supported), in order.
std::vector<FusionGroup> PlanFusionGroups(const Graph& graph,
                                          const std::vector<NodeId>& nodes);

// The bias a group with `bias` adds: `add`'s operand other than `made`
// (what the group computed before the add).
ValueId BiasOf(const Node& add, ValueId made);

// "conv2d+add+relu", "conv2d+silu", "matmul+add+gelu".
std::string FusionGroupName(const Graph& graph, const std::vector<NodeId>& nodes,
                            const FusionGroup& g);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_FUSION_H_
