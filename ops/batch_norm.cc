// batch_norm: batch normalization at inference, as
// torch.nn.functional.batch_norm(training=False) and torch.nn.BatchNorm2d in
// eval mode: y = (x - running_mean) / sqrt(running_var + epsilon) * weight
// + bias, per channel (dim 1).
//   operands:   input [N, C, ...] (rank >= 2), weight [C], bias [C],
//               running_mean [C], running_var [C]
//   attributes: epsilon = 1e-5 (> 0 and finite; ops/norm_attrs.h)
//   output:     input's shape and dtype

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> BatchNormShape(const BatchNormAttrs& /*attrs*/,
                                     absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  if (input.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must have rank >= 2 (N, C, ...) with channels in dim 1, "
        "got ",
        input.ToString()));
  }
  const int64_t channels = input.dim(1);
  // The schema's operand names, for messages.
  constexpr const char* names[] = {"input", "weight", "bias", "running_mean",
                                   "running_var"};
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i] != Shape({channels})) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " must be [", channels,
                       "] (one value per channel of input ", input.ToString(),
                       ", dim 1), got ", operands[i].ToString()));
    }
  }
  return input;
}

// Folded into one multiply-add per element, x * scale + shift, after 5
// operations per channel: var + eps, sqrt, scale = weight / that,
// mean * scale, shift = bias - that.
int64_t BatchNormFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                       const Shape& output) {
  const int64_t channels = output.rank() >= 2 ? output.dim(1) : 0;
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct({2, output.num_elements()}),
       ops_internal::SaturatingProduct({5, channels})});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"batch_norm",
     {{"input"}, {"weight"}, {"bias"}, {"running_mean"}, {"running_var"}},
     ops_internal::FloatingDTypes()},
    &BatchNormShape, &BatchNormFlops));

}  // namespace
}  // namespace switchyard
