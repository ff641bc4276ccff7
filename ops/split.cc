// split: cuts its operand along one dim into consecutive pieces, one output
// each, as ONNX Split with its `split` input as an attribute.
//   operands:   input (rank >= 1, any dtype)
//   attributes: axis = 0 (negative counts from the end), sizes (ints,
//               required: one entry >= 0 per output, summing to the input's
//               length along axis; ops/shape_attrs.h)
//   outputs:    outputs... (one per entry of sizes): the input's shape with
//               dim axis sizes[i]; a zero size gives an empty output

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> SplitTypes(
    const SplitAttrs& a, absl::Span<const TensorType> operands) {
  const Shape& input = operands[0].shape;
  if (input.rank() == 0) {
    return absl::InvalidArgumentError(
        "split takes an input of rank >= 1, got a scalar");
  }
  SY_ASSIGN_OR_RETURN(int axis,
                      ops_internal::WrapDim(a.axis, input.rank(), "axis"));
  int64_t total = 0;
  for (int64_t size : a.sizes) {
    if (__builtin_add_overflow(total, size, &total)) total = -1;
    if (total < 0) break;
  }
  if (total != input.dim(axis)) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'sizes' [", absl::StrJoin(a.sizes, ", "),
                     "] must sum to the input's length along axis ", axis, ": ",
                     input.dim(axis), " (input ", input.ToString(), ")"));
  }
  std::vector<TensorType> outputs;
  for (int64_t size : a.sizes) {
    std::vector<int64_t> dims = input.dims();
    dims[axis] = size;
    outputs.push_back({Shape(std::move(dims)), operands[0].dtype});
  }
  return outputs;
}

// Any dtype: it only moves elements. One output per entry of `sizes`.
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"split", {{"input"}}, {},
     {{"outputs", /*optional=*/false, /*variadic=*/true}}},
    &SplitTypes));

}  // namespace
}  // namespace switchyard
