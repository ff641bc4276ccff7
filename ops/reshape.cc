// reshape: the same row-major elements under another shape, as ONNX Reshape
// once the importer has resolved its -1 and 0 entries.
//   operands:   input (any shape, any dtype)
//   attributes: shape (ints, required; entries >= 0, product = the input's
//               element count; ops/shape_attrs.h)
//   output:     `shape`

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ReshapeShape(const ReshapeAttrs& a,
                                   absl::Span<const Shape> operands) {
  absl::StatusOr<Shape> shape = Shape::Create(a.shape, 1);
  const Shape target = shape.ok() ? *shape : Shape(a.shape);
  if (!shape.ok() || target.num_elements() != operands[0].num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'shape' ", target.ToString(), " must hold the ",
        operands[0].num_elements(), " elements of input ",
        operands[0].ToString(),
        shape.ok() ? absl::StrCat(", not ", target.num_elements())
                   : absl::StrCat(": ", shape.status().message())));
  }
  return target;
}

// Any dtype: it moves no element.
static const bool kRegistered = RegisterOp(
    ops_internal::ShapeOp({"reshape", {{"input"}}, {}}, &ReshapeShape));

}  // namespace
}  // namespace switchyard
