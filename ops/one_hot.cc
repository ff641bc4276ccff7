// one_hot: a class index per element, spread along a new dim, as ONNX
// OneHot.
//   operands:   indices (int64, int32 or float32, any rank), values ([2]:
//               the off value, then the on value; any dtype)
//   attributes: depth (required, >= 1), axis = -1 (ops/one_hot_attrs.h)
//   output:     values' dtype; indices' shape with a dim of `depth`
//               inserted at `axis` (in [-r - 1, r] for indices of rank r):
//               output[a..., d, b...] = indices[a..., b...] == d ? on : off
// An index in [-depth, depth) is a class, a negative one counting from the
// end; any other (and a float one that is not finite) gives a row of off
// values, as ONNX says. Float indices are truncated toward zero.

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/one_hot_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> OneHotTypes(
    const OneHotAttrs& a, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(
      operands[0].dtype, "indices", "one_hot",
      {DType::kInt64, DType::kInt32, DType::kFloat32}));
  const Shape& values = operands[1].shape;
  if (values.rank() != 1 || values.dim(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "values is ", values.ToString(), "; one_hot takes [2]: off, then on"));
  }
  const Shape& indices = operands[0].shape;
  const int rank = indices.rank() + 1;
  if (a.axis < -rank || a.axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'axis' is ", a.axis, ", out of range [", -rank, ", ", rank - 1,
        "] for indices of rank ", indices.rank()));
  }
  const int axis = static_cast<int>(a.axis < 0 ? a.axis + rank : a.axis);
  std::vector<int64_t> dims = indices.dims();
  dims.insert(dims.begin() + axis, a.depth);
  if (ops_internal::SaturatingProduct({indices.num_elements(), a.depth}) ==
      std::numeric_limits<int64_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the output of ", indices.num_elements(), " indices of depth ", a.depth,
        " is too large"));
  }
  return std::vector<TensorType>{{Shape(std::move(dims)), operands[1].dtype}};
}

// Dtypes: checked by OneHotTypes (the kernels are keyed by indices').
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"one_hot", {{"indices"}, {"values"}}, {DType::kInt64, DType::kInt32, DType::kFloat32}},
    &OneHotTypes));

}  // namespace
}  // namespace switchyard
