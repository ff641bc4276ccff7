// scatter_elements: data with elements replaced (or combined) by updates at
// positions along one dim, as ONNX ScatterElements.
//   operands:   data (rank >= 1, any dtype), indices (int64 or int32, data's
//               rank, each dim but `axis` at most data's), updates (data's
//               dtype, indices' shape)
//   attributes: axis = 0, reduction = none (ops/gather_scatter_attrs.h)
//   output:     data's shape and dtype: a copy of data, then for each
//               position p of indices, in row-major order,
//               output[p with p[axis] = indices[p]] (op)= updates[p]
// none replaces (the last duplicate wins); add, mul, max, min combine
// (float32, float64, int64, int32; integers wrap). Indices are run-time
// data: the kernels check every one against [-n, n) (n: data's length along
// axis; negative counts from the end) before writing anything
// (ops/gather_scatter_geometry.h).

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> ScatterElementsTypes(
    const ScatterElementsAttrs& a, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[1].dtype, "indices",
                                              "scatter_elements",
                                              {DType::kInt64, DType::kInt32}));
  const Shape& data = operands[0].shape;
  const Shape& indices = operands[1].shape;
  const Shape& updates = operands[2].shape;
  if (operands[2].dtype != operands[0].dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates is ", DTypeName(operands[2].dtype), " but data is ",
        DTypeName(operands[0].dtype), "; scatter_elements needs one dtype"));
  }
  if (data.rank() == 0 || indices.rank() != data.rank() || updates != indices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", data.ToString(), ", indices ", indices.ToString(), " and updates ",
        updates.ToString(), ": scatter_elements needs data of rank >= 1, "
        "indices of its rank and updates of indices' shape"));
  }
  SY_ASSIGN_OR_RETURN(int axis, ops_internal::WrapDim(a.axis, data.rank(), "axis"));
  for (int d = 0; d < data.rank(); ++d) {
    if (d != axis && indices.dim(d) > data.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices ", indices.ToString(), " is longer than data ", data.ToString(),
          " along dim ", d, ", which is not the scattered axis ", axis));
    }
  }
  return std::vector<TensorType>{{data, operands[0].dtype}};
}

// Dtypes: data and updates any (the reductions' are the kernels'); indices
// int64 or int32 (checked above).
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"scatter_elements", {{"data"}, {"indices"}, {"updates"}}, {}},
    &ScatterElementsTypes));

}  // namespace
}  // namespace switchyard
