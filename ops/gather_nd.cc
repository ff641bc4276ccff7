// gather_nd: picks slices of data by index tuples, as ONNX GatherND.
//   operands:   data (rank r >= 1, any dtype), indices (int64 or int32, rank
//               q >= 1; its last dim m is the tuple length)
//   attributes: batch_dims = b (ops/gather_scatter_attrs.h): the first b
//               dims of data and indices agree and are gathered within
//   output:     data's dtype, shape indices[:-1] + data[b + m:]:
//               output[i..., j...] = data[i[:b]..., indices[i...]..., j...]
//               with b < min(q, r) and 1 <= m <= r - b
// Indices are run-time data: the kernels check each tuple entry k against
// [-n, n) (n: data's dim b + k; negative counts from the end) before
// reading anything (ops/gather_scatter_geometry.h).

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> GatherNdTypes(
    const GatherNdAttrs& a, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[1].dtype, "indices", "gather_nd",
                                              {DType::kInt64, DType::kInt32}));
  const Shape& data = operands[0].shape;
  const Shape& indices = operands[1].shape;
  const int64_t b = a.batch_dims;
  if (data.rank() == 0 || indices.rank() == 0 || b >= data.rank() ||
      b >= indices.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", data.ToString(), " and indices ", indices.ToString(),
        " must both have rank > batch_dims (", b, ")"));
  }
  for (int d = 0; d < b; ++d) {
    if (data.dim(d) != indices.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "data ", data.ToString(), " and indices ", indices.ToString(),
          " differ in batch dim ", d));
    }
  }
  const int64_t m = indices.dim(indices.rank() - 1);
  if (m < 1 || m > data.rank() - b) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices ", indices.ToString(), " has tuples of ", m, " for data ",
        data.ToString(), " with batch_dims ", b, "; gather_nd takes 1 to ",
        data.rank() - b));
  }
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), data.dims().begin() + b + m, data.dims().end());
  return std::vector<TensorType>{{Shape(std::move(dims)), operands[0].dtype}};
}

// Dtypes: data any; indices int64 or int32 (checked above).
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"gather_nd", {{"data"}, {"indices"}}, {}}, &GatherNdTypes));

}  // namespace
}  // namespace switchyard
