#include "ops/reduce_op.h"

#include <vector>

#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace ops_internal {

const OpSchema& ReduceOp::schema() const {
  static const OpSchema* schema = [] {
    auto* s = new OpSchema;
    s->inputs = {{"input"}};
    ReduceAttrs::DeclareIn(*s);
    s->dtypes = FloatingDTypes();
    return s;
  }();
  return *schema;
}

absl::StatusOr<Shape> ReduceOp::InferShape(
    const AttrMap& attrs, absl::Span<const Shape> operands) const {
  SY_RETURN_IF_ERROR(CheckSchema(*this, attrs, operands));
  SY_ASSIGN_OR_RETURN(ReduceAttrs a, ReduceAttrs::FromAttrMap(attrs, name_));
  SY_ASSIGN_OR_RETURN(std::vector<bool> reduced,
                      ReducedAxes(a.axes, operands[0]));
  return ReducedShape(operands[0], reduced, a.keepdims);
}

int64_t ReduceOp::Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                        const Shape& output) const {
  if (operands.empty()) return 0;
  return SaturatingSum(
      {SaturatingProduct({flops_per_element_, operands[0].num_elements()}),
       name_ == "reduce_mean" ? output.num_elements() : 0});
}

}  // namespace ops_internal
}  // namespace switchyard
