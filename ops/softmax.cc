// softmax and log_softmax along one dimension, one definition (the same
// attributes, shapes and costs):
//   softmax:     exp(x) / sum(exp(x)), as torch.nn.functional.softmax
//   log_softmax: log(softmax(x)), computed as x - max - log(sum(exp(x -
//                max))) so it neither overflows nor takes the log of an
//                underflowed 0; as torch.nn.functional.log_softmax and ONNX
//                LogSoftmax (opset 13; the importer reshapes for earlier
//                opsets)
//   operands:   input (rank >= 1)
//   attributes: dim (required; negative counts from the end;
//               ops/softmax_attrs.h)
//   output:     the same shape

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/softmax_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> SoftmaxShape(const SoftmaxAttrs& a,
                                   absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  if (input.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have rank >= 1, got ", input.ToString()));
  }
  SY_RETURN_IF_ERROR(
      ops_internal::WrapDim(a.dim, input.rank(), "dim").status());
  return input;
}

// Per element: compare for the max, subtract it, exp, add to the sum, then
// divide (softmax) or subtract the log (log_softmax).
int64_t SoftmaxFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                     const Shape& output) {
  return ops_internal::SaturatingProduct({5, output.num_elements()});
}

bool RegisterAll() {
  bool ok = true;
  for (const char* name : {"softmax", "log_softmax"}) {
    ok &= RegisterOp(ops_internal::ShapeOp(
        {name, {{"input"}}, ops_internal::FloatingDTypes()}, &SoftmaxShape,
        &SoftmaxFlops));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
