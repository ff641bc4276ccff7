// adaptive_avg_pool2d: average pooling to a fixed output size, as
// torch.nn.functional.adaptive_avg_pool2d; windows from AdaptiveStart and
// AdaptiveEnd (ops/pool_geometry.h).
//   operands:   input [N, C, H, W]
//   attributes: output_size [2] (required, each >= 1; ops/pool_attrs.h)
//   output:     [N, C, output_size[0], output_size[1]]

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

// Sum of the window lengths along one dimension, sum over i < out of
// AdaptiveEnd(i) - AdaptiveStart(i), in closed form: in + out - gcd(in, out)
// (a loop over the windows took seconds for out = 2^30 and overflowed).
int64_t WindowTotal(int64_t in, int64_t out) {
  return in + out - std::gcd(in, out);
}

absl::StatusOr<Shape> AdaptiveAvgPool2dShape(const AdaptiveAvgPool2dAttrs& a,
                                             absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  SY_RETURN_IF_ERROR(ops_internal::CheckNchw(input, "input"));
  return Shape({input.dim(0), input.dim(1), a.output_h, a.output_w});
}

// One add per window element, one divide per output element.
int64_t AdaptiveAvgPool2dFlops(const AttrMap& attrs,
                               absl::Span<const Shape> operands,
                               const Shape& output) {
  absl::StatusOr<AdaptiveAvgPool2dAttrs> a =
      AdaptiveAvgPool2dAttrs::FromAttrMap(attrs);
  if (!a.ok() || operands.empty() || operands[0].rank() != 4) return 0;
  const Shape& input = operands[0];
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct(
           {input.dim(0), input.dim(1), WindowTotal(input.dim(2), a->output_h),
            WindowTotal(input.dim(3), a->output_w)}),
       output.num_elements()});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"adaptive_avg_pool2d", {{"input"}}, ops_internal::FloatingDTypes()},
    &AdaptiveAvgPool2dShape, &AdaptiveAvgPool2dFlops));

}  // namespace
}  // namespace switchyard
