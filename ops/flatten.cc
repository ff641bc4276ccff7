// flatten: merges dimensions start_dim..end_dim into one, as torch.flatten.
//   operands:   input (any shape)
//   attributes: start_dim = 1, end_dim = -1 (negative dims count from the
//               end; start_dim must not come after end_dim;
//               ops/tensor_attrs.h)
//   output:     e.g. [N, C, H, W] -> [N, C*H*W]; a rank-0 input gives [1]

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/flatten_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> FlattenShape(const FlattenAttrs& a,
                                   absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const int64_t start_attr = a.start_dim;
  const int64_t end_attr = a.end_dim;
  SY_ASSIGN_OR_RETURN(
      int start, ops_internal::WrapDim(start_attr, input.rank(), "start_dim"));
  SY_ASSIGN_OR_RETURN(int end,
                      ops_internal::WrapDim(end_attr, input.rank(), "end_dim"));
  if (start > end) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'start_dim' (", start_attr, ", dim ", start,
                     ") must not come after attribute 'end_dim' (", end_attr,
                     ", dim ", end, ") for input of rank ", input.rank()));
  }
  if (input.rank() == 0) return Shape({1});
  std::vector<int64_t> dims(input.dims().begin(), input.dims().begin() + start);
  int64_t merged = 1;
  for (int i = start; i <= end; ++i) merged *= input.dim(i);
  dims.push_back(merged);
  dims.insert(dims.end(), input.dims().begin() + end + 1, input.dims().end());
  return Shape(std::move(dims));
}

// Any dtype: it only reshapes.
static const bool kRegistered = RegisterOp(
    ops_internal::ShapeOp({"flatten", {{"input"}}, {}}, &FlattenShape));

}  // namespace
}  // namespace switchyard
