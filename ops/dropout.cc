// dropout: identity at inference (this runtime never trains), as
// torch.nn.functional.dropout(training=False).
//   operands:   input (any shape)
//   attributes: p = 0.5, the drop probability, in [0, 1]
//               (ops/tensor_attrs.h)
//   output:     the same shape

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/dropout_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> DropoutShape(const DropoutAttrs& /*attrs*/,
                                   absl::Span<const Shape> operands) {
  return operands[0];
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"dropout", {{"input"}}, ops_internal::FloatingDTypes()}, &DropoutShape));

}  // namespace
}  // namespace switchyard
