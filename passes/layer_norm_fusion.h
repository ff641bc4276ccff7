#ifndef SWITCHYARD_PASSES_LAYER_NORM_FUSION_H_
#define SWITCHYARD_PASSES_LAYER_NORM_FUSION_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/pass.h"

namespace switchyard {

// The pass's name: CompileOptions::disabled_passes and dump_after take it.
inline constexpr char kLayerNormFusionPassName[] = "layer-norm-fusion";

// Rebuilds layer_norm (ops/layer_norm.cc) from the decomposition torch.onnx
// exports for nn.LayerNorm below opset 17 (convnext, vit, swin):
//
//   mean = reduce_mean(x, axes = the trailing k dims, keepdims)
//   d    = sub(x, mean)
//   var  = reduce_mean(pow(d, 2), the same axes, keepdims)
//   y    = div(d, sqrt(add(var, eps)))
//   [y   = mul(y, gamma)]   [y = add(y, beta)]     (either operand order)
//
// becomes y = layer_norm(x, gamma or ones, [beta]) {axis = rank - k,
// epsilon = eps}. The last node of the pattern is rewritten in place, so its
// output keeps its value id and name (readers and graph outputs do not
// change); the others go.
//
// Strict, since anything else would change what the graph computes:
// x is float32 (the dtype every backend's layer_norm kernel takes); every
// intermediate is read only by the next node of the pattern (d by pow and
// div) and is not a graph output; both reduce_means take the same trailing
// axes with keepdims; pow's exponent is a constant equal to 2; eps is a
// one-element constant >= 0; the constants are on one device; every node
// keeps x's shape where it should. Otherwise nothing is fused. The optional
// mul and add are taken only when gamma and beta are float32 constants on
// that device, of shape x[axis:] (or that shape after leading 1s); a mul or
// add that is not is left after the fused node, reading its output.
// Run after shape inference (it reads shapes) and before placement;
// linking //passes registers it (CompileOptions::disabled_passes names it
// to turn it off).
class LayerNormFusionPass : public Pass {
 public:
  std::string name() const override { return kLayerNormFusionPassName; }
  absl::StatusOr<bool> Run(Graph& graph) override;
};

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_LAYER_NORM_FUSION_H_
