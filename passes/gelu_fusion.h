#ifndef SWITCHYARD_PASSES_GELU_FUSION_H_
#define SWITCHYARD_PASSES_GELU_FUSION_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/pass.h"

namespace switchyard {

// The pass's name: CompileOptions::disabled_passes and dump_after take it.
inline constexpr char kGeluFusionPassName[] = "gelu-fusion";

// Rebuilds gelu (the exact one, 0.5 * x * (1 + erf(x / sqrt(2)))) from the
// decomposition torch.onnx exports for nn.GELU below opset 20:
//
//   t = div(x, c)   with c ~ sqrt(2)      (or mul(x, c') with c' ~ 1/sqrt(2))
//   a = add(erf(t), 1)
//   y = mul(mul(x, a), 0.5)   or  mul(x, mul(a, 0.5))  or  mul(mul(x, 0.5), a)
//
// (every add and mul in either operand order) becomes y = gelu(x). The last
// mul is rewritten in place, so y keeps its value id and name; the other
// nodes go.
//
// Strict: c, c', 1 and 0.5 are one-element floating-point constants within
// 1e-6 relative of their values; every intermediate is read only by the
// next node of the pattern and is not a graph output; x is floating point
// and y has x's shape (a constant cannot broadcast it bigger). Otherwise
// nothing is fused.
// Run after shape inference and before placement; linking //passes
// registers it (CompileOptions::disabled_passes names it to turn it off).
class GeluFusionPass : public Pass {
 public:
  std::string name() const override { return kGeluFusionPassName; }
  absl::StatusOr<bool> Run(Graph& graph) override;
};

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_GELU_FUSION_H_
