// avg_pool2d: 2-D average pooling with ONNX AveragePool's semantics
// (opsets 11 to 18, no dilation): padding may differ on each side, ceil_mode
// drops a window that would start in the end padding alone, and
// count_include_pad chooses the divisor (ops/pool_geometry.h AvgPoolSpan).
//   operands:   input [N, C, H, W]
//   attributes: kernel_size [2] (required), stride [2] = [] (kernel_size),
//               padding [4] = [0, 0, 0, 0] (top, left, bottom, right; each
//               < kernel_size), ceil_mode = false, count_include_pad = false
//               (see ops/pool_attrs.h)
//   output:     [N, C, Ho, Wo], PooledLength per spatial dimension

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> AvgPool2dShape(const AvgPool2dAttrs& a,
                                     absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  SY_RETURN_IF_ERROR(ops_internal::CheckNchw(input, "input"));
  const int64_t out_h = PooledLength(input.dim(2), a.kernel_h, a.stride_h,
                                     a.pad_top, a.pad_bottom, 1, a.ceil_mode);
  const int64_t out_w = PooledLength(input.dim(3), a.kernel_w, a.stride_w,
                                     a.pad_left, a.pad_right, 1, a.ceil_mode);
  if (out_h < 1 || out_w < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(),
        " is too small for the pooling window: kernel_size [", a.kernel_h, ", ",
        a.kernel_w, "], stride [", a.stride_h, ", ", a.stride_w, "], padding [",
        a.pad_top, ", ", a.pad_left, ", ", a.pad_bottom, ", ", a.pad_right,
        "], ceil_mode ", a.ceil_mode ? "true" : "false", " give an output of ",
        out_h, "x", out_w, " (H x W); both must be >= 1"));
  }
  return Shape({input.dim(0), input.dim(1), out_h, out_w});
}

// One addition per window element per output element, and a division.
int64_t AvgPool2dFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                       const Shape& output) {
  absl::StatusOr<AvgPool2dAttrs> a = AvgPool2dAttrs::FromAttrMap(attrs);
  if (!a.ok()) return 0;
  return ops_internal::SaturatingProduct(
      {output.num_elements(), a->kernel_h * a->kernel_w + 1});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"avg_pool2d", {{"input"}}, ops_internal::FloatingDTypes()},
    &AvgPool2dShape, &AvgPool2dFlops));

}  // namespace
}  // namespace switchyard
