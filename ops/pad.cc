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
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> PadShape(const PadAttrs& a,
                               absl::Span<const Shape> operands) {
  return PadOutputShape(a, operands[0]);
}

// Any dtype: it moves elements and fills one value.
static const bool kRegistered =
    RegisterOp(ops_internal::ShapeOp({"pad", {{"input"}}, {}}, &PadShape));

}  // namespace
}  // namespace switchyard
