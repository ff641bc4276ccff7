// topk: the k largest (or smallest) elements along one axis and their
// indices, as ONNX TopK. Order: best first; among equal values the lower
// index first; NaN counts as larger than every number (as PyTorch's topk).
//   operands:   input (rank >= 1; float32, float64, int64, int32)
//   attributes: k (required, 0 <= k <= the axis's length), axis = -1,
//               largest = true, sorted = true (ops/topk_attrs.h)
//   outputs:    values (the input's dtype), indices (int64): the input's
//               shape with dim axis k

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/topk_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> TopKTypes(const TopKAttrs& a,
                                                  absl::Span<const TensorType> operands) {
  const Shape& input = operands[0].shape;
  if (input.rank() == 0) {
    return absl::InvalidArgumentError("topk takes an input of rank >= 1, got a scalar");
  }
  SY_ASSIGN_OR_RETURN(int axis, ops_internal::WrapDim(a.axis, input.rank(), "axis"));
  if (a.k > input.dim(axis)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'k' is ", a.k, " but the input ", input.ToString(), " has only ",
        input.dim(axis), " elements along axis ", axis));
  }
  std::vector<int64_t> dims = input.dims();
  dims[axis] = a.k;
  return std::vector<TensorType>{{Shape(dims), operands[0].dtype},
                                 {Shape(dims), DType::kInt64}};
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {TopKAttrs::kOp,
     {{"input"}},
     {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32},
     {{"values"}, {"indices"}}},
    &TopKTypes));

}  // namespace
}  // namespace switchyard
