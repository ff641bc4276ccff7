#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_ELTWISE_ALGORITHM_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_ELTWISE_ALGORITHM_H_

// Switchyard's unary elementwise ops as oneDNN eltwise algorithms (relu,
// clip, sigmoid, tanh, sqrt, abs, leaky_relu, hard_swish, gelu,
// hard_sigmoid), each the op's formula (ops/unary_functors.h), infinities
// and NaN included, except that relu, clip and hard_sigmoid (oneDNN's max
// and min) turn NaN into 0 and the lower bound. hard_sigmoid has no
// algorithm in oneDNN 2.6: it is two, alpha * x + beta, then a clip to
// [0, 1]. Not here: exp (oneDNN 2.6 makes NaN inf), erf (only inside
// gelu_erf). One mapping
// for both uses: a unary node lowered on its own (eltwise_forward,
// dnnl_unary.cc) and a unary node folded into the primitive before it (an
// eltwise post-op, dnnl_fusion.h).
//
//   SY_ASSIGN_OR_RETURN(EltwiseAlgorithm e, EltwiseAlgorithmOf(node));
//   dnnl::eltwise_forward::desc d(prop, e.algorithm, md, e.alpha, e.beta);

#include "absl/status/statusor.h"
#include "core/graph.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {

struct EltwiseAlgorithm {
  dnnl::algorithm algorithm = dnnl::algorithm::eltwise_relu;
  float alpha = 0;
  float beta = 0;
  // Then clipped to [0, 1] (hard_sigmoid: a second oneDNN formula).
  bool then_clip_to_unit = false;
};

// `e` appended to `post_ops`: one eltwise post-op, or two.
void AppendEltwise(dnnl::post_ops& post_ops, const EltwiseAlgorithm& e);

// The algorithm computing unary node `node`; Unimplemented (naming the node
// and why) when oneDNN has none for its op or attributes.
absl::StatusOr<EltwiseAlgorithm> EltwiseAlgorithmOf(const Node& node);

// SiLU, x * sigmoid(x): the post-op a sigmoid and a mul make together.
inline EltwiseAlgorithm Silu() {
  return {dnnl::algorithm::eltwise_swish, 1.0f, 0.0f};
}

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_ELTWISE_ALGORITHM_H_
