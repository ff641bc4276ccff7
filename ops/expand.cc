// expand: broadcasts its operand to a larger shape, as ONNX Expand.
//   operands:   input (any shape, any dtype)
//   attributes: shape (ints, required; entries >= 0; ops/shape_attrs.h)
//   output:     the numpy broadcast of input's shape and `shape`
//               (ops/broadcast.h), so a 1 in `shape` keeps the input's dim
//               and `shape` may have fewer dims than the input

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/broadcast.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ExpandShape(const ExpandAttrs& a,
                                  absl::Span<const Shape> operands) {
  const std::vector<Shape> shapes = {operands[0], Shape(a.shape)};
  const std::vector<std::string> names = {"input", "attribute 'shape'"};
  return BroadcastShapes(shapes, names);
}

// Any dtype: it only copies elements.
static const bool kRegistered = RegisterOp(
    ops_internal::ShapeOp({"expand", {{"input"}}, {}}, &ExpandShape));

}  // namespace
}  // namespace switchyard
