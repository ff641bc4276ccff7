// conv2d: 2-D convolution, as torch.nn.functional.conv2d (cross-correlation,
// zero padding).
//   operands:   input [N, C, H, W], weight [O, C/groups, kH, kW], bias [O]
//               (optional)
//   attributes: stride [2] = [1, 1], padding [2] = [0, 0],
//               dilation [2] = [1, 1], groups = 1 (see ops/conv_attrs.h)
//   output:     [N, O, Ho, Wo], ConvOutputLength per spatial dimension

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/conv_attrs.h"
#include "ops/op_util.h"
#include "ops/pool_geometry.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

// dilation * (kernel - 1) + 1, saturating (only used for messages).
int64_t EffectiveKernel(int64_t kernel, int64_t dilation) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (kernel - 1 > (kMax - 1) / dilation) return kMax;
  return dilation * (kernel - 1) + 1;
}

absl::StatusOr<Shape> Conv2dShape(const Conv2dAttrs& a,
                                  absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const Shape& weight = operands[1];
  SY_RETURN_IF_ERROR(ops_internal::CheckNchw(input, "input"));
  SY_RETURN_IF_ERROR(ops_internal::CheckRank(
      weight, "weight", 4, "(out_channels, in_channels / groups, kH, kW)"));
  for (int64_t d : weight.dims()) {
    if (d < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "weight ", weight.ToString(), " must have non-zero dimensions"));
    }
  }
  const int64_t channels = input.dim(1);
  const int64_t out_channels = weight.dim(0);
  if (channels % a.groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(), " has ", channels,
        " channels, not divisible by attribute 'groups' (", a.groups, ")"));
  }
  if (out_channels % a.groups != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", weight.ToString(), " has ", out_channels,
                     " output channels, not divisible by attribute 'groups' (",
                     a.groups, ")"));
  }
  if (weight.dim(1) != channels / a.groups) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", weight.ToString(), " expects ", weight.dim(1),
                     " input channels per group (input has ", channels,
                     " channels, groups=", a.groups, ")"));
  }
  if (operands.size() > 2 && operands[2] != Shape({out_channels})) {
    return absl::InvalidArgumentError(
        absl::StrCat("bias must be [", out_channels,
                     "] (one value per output channel of weight ",
                     weight.ToString(), "), got ", operands[2].ToString()));
  }
  const int64_t padded_h = input.dim(2) + 2 * a.pad_h;
  const int64_t padded_w = input.dim(3) + 2 * a.pad_w;
  // dilation * (k - 1) + 1 <= padded, written so it cannot overflow.
  if (weight.dim(2) - 1 > (padded_h - 1) / a.dilation_h ||
      weight.dim(3) - 1 > (padded_w - 1) / a.dilation_w) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", input.ToString(),
                     " is too small for the kernel: padded input is ", padded_h,
                     "x", padded_w, " (H x W, padding [", a.pad_h, ", ",
                     a.pad_w, "]) but the effective kernel is ",
                     EffectiveKernel(weight.dim(2), a.dilation_h), "x",
                     EffectiveKernel(weight.dim(3), a.dilation_w), " (weight ",
                     weight.ToString(), ", dilation [", a.dilation_h, ", ",
                     a.dilation_w, "])"));
  }
  const int64_t out_h = ConvOutputLength(input.dim(2), weight.dim(2),
                                         a.stride_h, a.pad_h, a.dilation_h);
  const int64_t out_w = ConvOutputLength(input.dim(3), weight.dim(3),
                                         a.stride_w, a.pad_w, a.dilation_w);
  return Shape({input.dim(0), out_channels, out_h, out_w});
}

// 2 * N * O * Ho * Wo * (C / groups) * kH * kW, plus one add per output
// element for the bias.
int64_t Conv2dFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                    const Shape& output) {
  if (operands.size() < 2 || operands[1].rank() != 4) return 0;
  const Shape& weight = operands[1];
  const int64_t outputs = output.num_elements();
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct(
           {2, outputs, weight.dim(1), weight.dim(2), weight.dim(3)}),
       operands.size() > 2 ? outputs : 0});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"conv2d", {{"input"}, {"weight"}, {"bias", /*optional=*/true}},
     ops_internal::FloatingDTypes()},
    &Conv2dShape, &Conv2dFlops));

}  // namespace
}  // namespace switchyard
