// scatter_nd: data with slices replaced (or combined) by updates at index
// tuples, as ONNX ScatterND.
//   operands:   data (rank r >= 1, any dtype), indices (int64 or int32, rank
//               q >= 1; its last dim m <= r is the tuple length), updates
//               (data's dtype, shape indices[:-1] + data[m:])
//   attributes: reduction = none (ops/gather_scatter_attrs.h)
//   output:     data's shape and dtype: a copy of data, then for each tuple
//               position i, in row-major order,
//               output[indices[i]..., j...] (op)= updates[i..., j...]
// none replaces (the last duplicate wins); add, mul, max, min combine
// (float32, float64, int64, int32; integers wrap). Indices are run-time
// data: the kernels check every tuple entry k against [-n, n) (n: data's
// dim k) before writing anything (ops/gather_scatter_geometry.h).

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> ScatterNdTypes(
    const ScatterNdAttrs&, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[1].dtype, "indices", "scatter_nd",
                                              {DType::kInt64, DType::kInt32}));
  const Shape& data = operands[0].shape;
  const Shape& indices = operands[1].shape;
  const Shape& updates = operands[2].shape;
  if (operands[2].dtype != operands[0].dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates is ", DTypeName(operands[2].dtype), " but data is ",
        DTypeName(operands[0].dtype), "; scatter_nd needs one dtype"));
  }
  if (data.rank() == 0 || indices.rank() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", data.ToString(), " and indices ", indices.ToString(),
        " must both have rank >= 1"));
  }
  const int64_t m = indices.dim(indices.rank() - 1);
  if (m < 1 || m > data.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices ", indices.ToString(), " has tuples of ", m, " for data ",
        data.ToString(), "; scatter_nd takes 1 to ", data.rank()));
  }
  std::vector<int64_t> expected(indices.dims().begin(), indices.dims().end() - 1);
  expected.insert(expected.end(), data.dims().begin() + m, data.dims().end());
  if (updates != Shape(expected)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates is ", updates.ToString(), "; for data ", data.ToString(),
        " and indices ", indices.ToString(), " scatter_nd takes ",
        Shape(expected).ToString()));
  }
  return std::vector<TensorType>{{data, operands[0].dtype}};
}

// Dtypes: data and updates any (the reductions' are the kernels'); indices
// int64 or int32 (checked above).
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"scatter_nd", {{"data"}, {"indices"}, {"updates"}}, {}}, &ScatterNdTypes));

}  // namespace
}  // namespace switchyard
