// gather_elements: picks one data element per index along one dim, as ONNX
// GatherElements.
//   operands:   data (rank >= 1, any dtype), indices (int64 or int32, data's
//               rank, each dim but `axis` at most data's)
//   attributes: axis = 0 (ops/gather_scatter_attrs.h)
//   output:     data's dtype, indices' shape:
//               output[i..., j, k...] = data[i..., indices[i..., j, k...], k...]
//               (the index replaces the coordinate along `axis`)
// Indices are run-time data: the kernels check each against [-n, n) (n:
// data's length along axis; negative counts from the end) before reading
// anything (ops/gather_scatter_geometry.h).

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> GatherElementsTypes(
    const GatherElementsAttrs& a, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[1].dtype, "indices",
                                              "gather_elements",
                                              {DType::kInt64, DType::kInt32}));
  const Shape& data = operands[0].shape;
  const Shape& indices = operands[1].shape;
  if (data.rank() == 0) {
    return absl::InvalidArgumentError("data is a scalar; gather_elements takes rank >= 1");
  }
  if (indices.rank() != data.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices ", indices.ToString(), " has rank ", indices.rank(), " but data ",
        data.ToString(), " has rank ", data.rank(), "; gather_elements needs one rank"));
  }
  SY_ASSIGN_OR_RETURN(int axis, ops_internal::WrapDim(a.axis, data.rank(), "axis"));
  for (int d = 0; d < data.rank(); ++d) {
    if (d != axis && indices.dim(d) > data.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices ", indices.ToString(), " is longer than data ", data.ToString(),
          " along dim ", d, ", which is not the gathered axis ", axis));
    }
  }
  if (data.dim(axis) == 0 && indices.num_elements() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", data.ToString(), " is empty along axis ", axis,
        ", so no index of indices ", indices.ToString(), " can be valid"));
  }
  return std::vector<TensorType>{{indices, operands[0].dtype}};
}

// Dtypes: data any; indices int64 or int32 (checked above).
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"gather_elements", {{"data"}, {"indices"}}, {}}, &GatherElementsTypes));

}  // namespace
}  // namespace switchyard
