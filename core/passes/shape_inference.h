#ifndef SWITCHYARD_CORE_PASSES_SHAPE_INFERENCE_H_
#define SWITCHYARD_CORE_PASSES_SHAPE_INFERENCE_H_

#include <string>

#include "core/op_def.h"
#include "core/pass.h"

namespace switchyard {

// Validates every node against its OpDef (operand count and attributes
// against the op's schema, then the op's own checks of operand shapes and
// dtypes) and records the shape and dtype of each node's outputs.
//
//   before: features.0/conv2d(input [1, 3, 32, 32], weight [8, 3, 3, 3]) -> ?
//   after:  features.0/conv2d(input [1, 3, 32, 32], weight [8, 3, 3, 3]) -> [1, 8, 32, 32]
//
// An error names the node, its layer and op, and the OpDef's reason.
class ShapeInferencePass : public Pass {
 public:
  explicit ShapeInferencePass(const OpRegistry& ops = OpRegistry::Global())
      : ops_(ops) {}
  std::string name() const override { return "shape-inference"; }
  absl::StatusOr<bool> Run(Graph& graph) override;

 private:
  const OpRegistry& ops_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASSES_SHAPE_INFERENCE_H_
