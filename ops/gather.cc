// gather: picks entries of `data` along one dim by index, as ONNX Gather.
//   operands:   data (rank >= 1, any dtype), indices (int64 or int32, any
//               rank, rank 0 too)
//   attributes: axis = 0 (negative counts from the end; ops/shape_attrs.h)
//   output:     data's dtype, shape data[:axis] + indices.shape +
//               data[axis+1:]: output[a..., i..., b...] =
//               data[a..., indices[i...], b...]
//
// An index in [-n, n) (n = data's length along axis) is valid, a negative
// one counting from the end. Indices are values, known only at run time, so
// every kernel checks them before reading and returns InvalidArgument naming
// the index, its position in `indices` and the bound; never an out-of-bounds
// read.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> GatherTypes(
    const GatherAttrs& a, absl::Span<const TensorType> operands) {
  const DType index_dtype = operands[1].dtype;
  if (index_dtype != DType::kInt64 && index_dtype != DType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices is ", DTypeName(index_dtype),
                     "; gather takes int64 or int32 indices (cast them)"));
  }
  const Shape& data = operands[0].shape;
  const Shape& indices = operands[1].shape;
  if (data.rank() == 0) {
    return absl::InvalidArgumentError(
        "gather takes data of rank >= 1, got a scalar");
  }
  SY_ASSIGN_OR_RETURN(int axis,
                      ops_internal::WrapDim(a.axis, data.rank(), "axis"));
  if (data.dim(axis) == 0 && indices.num_elements() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gather: data ", data.ToString(), " is empty along axis ", axis,
        ", so no index of indices ", indices.ToString(), " can be valid"));
  }
  std::vector<int64_t> dims(data.dims().begin(), data.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), data.dims().begin() + axis + 1, data.dims().end());
  return std::vector<TensorType>{{Shape(std::move(dims)), operands[0].dtype}};
}

// Dtypes: data any; indices int64 or int32 (checked by GatherTypes).
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"gather", {{"data"}, {"indices"}}, {}}, &GatherTypes));

}  // namespace
}  // namespace switchyard
