// relu: max(x, 0) elementwise, as torch.nn.functional.relu.
//   operands: input (any shape); output: the same shape

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ReluShape(const NoAttrs& /*attrs*/,
                                absl::Span<const Shape> operands) {
  return operands[0];
}

// One comparison per element.
int64_t ReluFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                  const Shape& output) {
  return output.num_elements();
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"relu", {{"input"}}, ops_internal::NumericDTypes()}, &ReluShape,
    &ReluFlops));

}  // namespace
}  // namespace switchyard
