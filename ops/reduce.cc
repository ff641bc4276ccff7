// The five reduce ops, one definition: ONNX ReduceMean, ReduceSum,
// ReduceMax, ReduceMin and ReduceProd with their axes as an attribute.
//   reduce_mean: the mean (sum, then one division per output)
//   reduce_sum:  the sum
//   reduce_max:  the maximum (NaN propagates)
//   reduce_min:  the minimum (NaN propagates)
//   reduce_prod: the product
//   operands:   input (any rank)
//   attributes: axes = [] (every axis), keepdims = true (ops/reduce_attrs.h)
//   output:     input's shape with each reduced axis 1 or removed
//               (ops/reduce_geometry.h), input's dtype
// Floating dtypes for all; max, min and prod also take int64 and int32
// (shape arithmetic). An empty reduction gives sum 0, mean NaN (0 / 0), max
// -inf, min +inf, prod 1 (integers: max the lowest value, min the highest).

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
  ok &= RegisterOp(ops_internal::ShapeOp(
      {"reduce_sum", {{"input"}}, ops_internal::FloatingDTypes()}, &ReduceShape,
      &ReduceFlops));
  std::vector<DType> with_integers = ops_internal::FloatingDTypes();
  with_integers.insert(with_integers.end(), {DType::kInt64, DType::kInt32});
  for (const char* name : {"reduce_max", "reduce_min", "reduce_prod"}) {
    ok &= RegisterOp(ops_internal::ShapeOp({name, {{"input"}}, with_integers},
                                           &ReduceShape, &ReduceFlops));
  }
  ok &= RegisterOp(ops_internal::ShapeOp(
      {"reduce_mean", {{"input"}}, ops_internal::FloatingDTypes()},
      &ReduceShape, &ReduceMeanFlops));
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
