// pad: grows (or, with negative pads, crops) each dim of its operand, as
// ONNX Pad (opset 11+) with its pads and constant_value inputs as
// attributes.
//   operands:   input (any shape, any dtype)
//   attributes: pads (ints, required: 2 * rank, every dim's begin then every
//               dim's end), mode = "constant" (or "reflect", "edge"),
//               value = 0 (constant mode's fill, converted to the dtype;
//               ops/shape_attrs.h)
//   output:     dim + begin + end per dim; element by element it copies the
//               input element ops/shape_geometry.h PadSourceIndex names per
//               dim, or the fill. Reflect and edge need a non-empty dim to
//               copy from. Reflect pads longer than dim - 1 mirror again
//               (numpy.pad's rule; ONNX Runtime refuses them).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace {

class PadOp : public OpDef {
 public:
  std::string name() const override { return "pad"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      PadAttrs::DeclareIn(*s);
      s->dtypes = {};  // any: it moves elements and fills one value
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(PadAttrs a, PadAttrs::FromAttrMap(attrs));
    return PadOutputShape(a, operands[0]);
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<PadOp>());

}  // namespace
}  // namespace switchyard
