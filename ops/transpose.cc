// transpose: permutes the dims, as ONNX Transpose (numpy.transpose).
//   operands:   input (any shape, any dtype)
//   attributes: perm (ints, required: a permutation of [0, rank); output dim
//               i is input dim perm[i]; ops/shape_attrs.h)
//   output:     [input.dim(perm[0]), ..., input.dim(perm[rank - 1])]

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

absl::StatusOr<Shape> TransposeShape(const TransposeAttrs& a,
                                     absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const int rank = input.rank();
  bool valid = static_cast<int>(a.perm.size()) == rank;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; valid && i < a.perm.size(); ++i) {
    const int64_t p = a.perm[i];
    valid = p >= 0 && p < rank && !seen[p];
    if (valid) seen[p] = true;
  }
  if (!valid) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'perm' [", absl::StrJoin(a.perm, ", "),
        "] must be a permutation of 0..", rank - 1, " for input ",
        input.ToString(), " (each dim once, no negative entries)"));
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) dims[i] = input.dim(a.perm[i]);
  return Shape(std::move(dims));
}

// Any dtype: it only moves elements.
static const bool kRegistered = RegisterOp(
    ops_internal::ShapeOp({"transpose", {{"input"}}, {}}, &TransposeShape));

}  // namespace
}  // namespace switchyard
