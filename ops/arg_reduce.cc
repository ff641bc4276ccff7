// argmax and argmin, as ONNX ArgMax and ArgMin: the index along `axis` of
// the largest (smallest) element.
//   operands:   input (rank >= 1; float32, float64, int64, int32)
//   attributes: axis = 0, keepdims = true, select_last_index = false
//               (ops/reduce_attrs.h)
//   output:     int64, input's shape with `axis` 1 (keepdims) or removed
// Ties give the first index, or the last with select_last_index. A NaN
// counts as beyond every number (numpy's argmax and argmin both pick it);
// NaNs tie with each other. The axis must not be empty.

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/reduce_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

const std::vector<DType>& ArgReduceDTypes() {
  static const auto* dtypes = new std::vector<DType>{
      DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32};
  return *dtypes;
}

absl::StatusOr<std::vector<TensorType>> ArgReduceTypes(
    const ArgReduceAttrs& a, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(
      operands[0].dtype, "input", "argmax and argmin", ArgReduceDTypes()));
  const Shape& in = operands[0].shape;
  if (in.rank() == 0) {
    return absl::InvalidArgumentError(
        "input is a scalar; argmax and argmin take rank >= 1");
  }
  SY_ASSIGN_OR_RETURN(int axis, ops_internal::WrapDim(a.axis, in.rank(), "axis"));
  if (in.dim(axis) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", in.ToString(), " is empty along axis ", axis,
        ", which has no largest or smallest element"));
  }
  std::vector<int64_t> dims = in.dims();
  if (a.keepdims) {
    dims[axis] = 1;
  } else {
    dims.erase(dims.begin() + axis);
  }
  return std::vector<TensorType>{{Shape(std::move(dims)), DType::kInt64}};
}

// One comparison per input element.
int64_t ArgReduceFlops(const AttrMap&, absl::Span<const Shape> operands,
                       const Shape&) {
  return operands.empty() ? 0 : operands[0].num_elements();
}

bool RegisterAll() {
  bool ok = true;
  for (const char* name : {"argmax", "argmin"}) {
    ok &= RegisterOp(ops_internal::TypesOp(
        {name, {{"input"}}, ArgReduceDTypes()}, &ArgReduceTypes, &ArgReduceFlops));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
