#ifndef SWITCHYARD_PASSES_RELU_FUSION_H_
#define SWITCHYARD_PASSES_RELU_FUSION_H_

#include <string>
#include <vector>

#include "core/device.h"
#include "core/graph.h"

namespace switchyard {

// A node and the relu right after it that may run as one kernel.
struct ReluFusion {
  NodeId producer;
  NodeId relu;
};

// Where a producer (any op; the caller picks those it has fused kernels
// for) can take the relu after it into its epilogue: node i and relu node
// i + 1 both placed on `device`, the relu's one operand is the producer's
// one output, nothing else reads that value and it is not a graph output
// (so no one ever sees the value before the relu), the relu's output is
// used, and the producer's operands are distinct (they become the fused
// kernel's inputs in order).
// Backend-neutral: the cpu and cuda devices both claim their
// conv2d+relu / linear+relu partitions from these pairs. The op names it
// matches are ops/op_names.h's.
//
//   conv2d(x, w, b) -> relu      on cuda:0: {producer conv2d, relu}
//   conv2d -> relu, conv2d's output also a graph output: nothing
std::vector<ReluFusion> FindReluFusions(const Graph& graph, const Device& device);

// The same pairs with any op of `followers` in the relu's place: the
// activations a device can apply in its producers' epilogues (the cpu
// device: relu and clip). `relu` in each pair is then that follower.
std::vector<ReluFusion> FindActivationFusions(const Graph& graph, const Device& device,
                                              const std::vector<std::string>& followers);

// The name of the partition of `producer_op` and its relu, which is also
// the key of the fused kernel: "conv2d" -> "conv2d+relu"; with a follower
// ("clip"): "conv2d+clip".
std::string ReluFusionName(const std::string& producer_op,
                           const std::string& follower_op = "relu");

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_RELU_FUSION_H_
