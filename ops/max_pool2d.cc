// max_pool2d: 2-D max pooling, as torch.nn.functional.max_pool2d.
//   operands:   input [N, C, H, W]
//   attributes: kernel_size [2] (required), stride [2] = [] (kernel_size),
//               padding [2] = [0, 0] (<= kernel_size / 2),
//               dilation [2] = [1, 1], ceil_mode = false
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

absl::StatusOr<Shape> MaxPool2dShape(const MaxPool2dAttrs& a,
                                     absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  SY_RETURN_IF_ERROR(ops_internal::CheckNchw(input, "input"));
  const int64_t out_h = PooledLength(input.dim(2), a.kernel_h, a.stride_h,
                                     a.pad_h, a.dilation_h, a.ceil_mode);
  const int64_t out_w = PooledLength(input.dim(3), a.kernel_w, a.stride_w,
                                     a.pad_w, a.dilation_w, a.ceil_mode);
  if (out_h < 1 || out_w < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(),
        " is too small for the pooling window: kernel_size [", a.kernel_h, ", ",
        a.kernel_w, "], stride [", a.stride_h, ", ", a.stride_w, "], padding [",
        a.pad_h, ", ", a.pad_w, "], dilation [", a.dilation_h, ", ",
        a.dilation_w, "], ceil_mode ", a.ceil_mode ? "true" : "false",
        " give an output of ", out_h, "x", out_w,
        " (H x W); both must be >= 1"));
  }
  return Shape({input.dim(0), input.dim(1), out_h, out_w});
}

// One comparison per window element per output element.
int64_t MaxPool2dFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                       const Shape& output) {
  absl::StatusOr<MaxPool2dAttrs> a = MaxPool2dAttrs::FromAttrMap(attrs);
  if (!a.ok()) return 0;
  return ops_internal::SaturatingProduct(
      {output.num_elements(), a->kernel_h, a->kernel_w});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"max_pool2d", {{"input"}}, ops_internal::FloatingDTypes()},
    &MaxPool2dShape, &MaxPool2dFlops));

}  // namespace
}  // namespace switchyard
