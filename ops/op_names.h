#ifndef SWITCHYARD_OPS_OP_NAMES_H_
#define SWITCHYARD_OPS_OP_NAMES_H_

// The names of the ops that code above ops matches by name (op-aware
// passes, fusion rules), spelled once: each is the OpDef::name() its .cc
// in ops/ registers (passes/op_names_test.cc checks every one is).
//
//   if (node.op == op_names::kConv2d) ...

namespace switchyard {
namespace op_names {

inline constexpr char kAdd[] = "add";
inline constexpr char kBatchNorm[] = "batch_norm";
inline constexpr char kConcat[] = "concat";
inline constexpr char kConv2d[] = "conv2d";
inline constexpr char kDiv[] = "div";
inline constexpr char kErf[] = "erf";
inline constexpr char kExpand[] = "expand";
inline constexpr char kGelu[] = "gelu";
inline constexpr char kLayerNorm[] = "layer_norm";
inline constexpr char kLinear[] = "linear";
inline constexpr char kMul[] = "mul";
inline constexpr char kPow[] = "pow";
inline constexpr char kReduceMean[] = "reduce_mean";
inline constexpr char kRelu[] = "relu";
inline constexpr char kReshape[] = "reshape";
inline constexpr char kScatterElements[] = "scatter_elements";
inline constexpr char kScatterNd[] = "scatter_nd";
inline constexpr char kSqrt[] = "sqrt";
inline constexpr char kSub[] = "sub";

}  // namespace op_names
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_OP_NAMES_H_
