// The four reduce ops, one definition: ONNX ReduceMean, ReduceSum, ReduceMax
// and ReduceMin with their axes as an attribute.
//   reduce_mean: the mean (sum, then one division per output)
//   reduce_sum:  the sum
//   reduce_max:  the maximum (NaN propagates)
//   reduce_min:  the minimum (NaN propagates)
//   operands:   input (any rank)
//   attributes: axes = [] (every axis), keepdims = true (ops/reduce_attrs.h)
//   output:     input's shape with each reduced axis 1 or removed
//               (ops/reduce_geometry.h), input's dtype
// An empty reduction gives sum 0, mean NaN (0 / 0), max -inf, min +inf.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ReduceShape(const ReduceAttrs& a,
                                  absl::Span<const Shape> operands) {
  SY_ASSIGN_OR_RETURN(std::vector<bool> reduced,
                      ReducedAxes(a.axes, operands[0]));
  return ReducedShape(operands[0], reduced, a.keepdims);
}

// One add or compare per input element.
int64_t ReduceFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                    const Shape& output) {
  return operands.empty() ? 0 : operands[0].num_elements();
}

// The sum's, and a division per output element.
int64_t ReduceMeanFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                        const Shape& output) {
  if (operands.empty()) return 0;
  return ops_internal::SaturatingSum(
      {operands[0].num_elements(), output.num_elements()});
}

bool RegisterAll() {
  bool ok = true;
  for (const char* name : {"reduce_sum", "reduce_max", "reduce_min"}) {
    ok &= RegisterOp(ops_internal::ShapeOp(
        {name, {{"input"}}, ops_internal::FloatingDTypes()}, &ReduceShape,
        &ReduceFlops));
  }
  ok &= RegisterOp(ops_internal::ShapeOp(
      {"reduce_mean", {{"input"}}, ops_internal::FloatingDTypes()},
      &ReduceShape, &ReduceMeanFlops));
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
