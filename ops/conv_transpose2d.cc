// conv_transpose2d: 2-D transposed convolution, as
// torch.nn.functional.conv_transpose2d and ONNX ConvTranspose: each input
// element adds its value times the kernel into the output at stride steps.
//   operands:   input [N, C, H, W], weight [C, O/groups, kH, kW], bias [O]
//               (optional)
//   attributes: stride [2] = [1, 1], padding [4] = [0, 0, 0, 0] (top, left,
//               bottom, right: removed from the full output), dilation [2],
//               output_padding [2] = [0, 0] (added at the bottom and right,
//               each less than its stride or its dilation), groups = 1
//               (ops/conv_transpose_attrs.h)
//   output:     [N, O, Ho, Wo], ConvTransposeOutputLength per axis

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/conv_transpose_attrs.h"
#include "ops/conv_transpose_geometry.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<int64_t> OutputLength(const char* axis, int64_t in, int64_t kernel,
                                     int64_t stride, int64_t pad_begin, int64_t pad_end,
                                     int64_t dilation, int64_t output_padding) {
  if (output_padding >= stride && output_padding >= dilation) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output_padding along ", axis, " is ", output_padding,
        "; it must be less than the stride (", stride, ") or the dilation (", dilation, ")"));
  }
  // Every term is below 2^31 (window attributes, dims checked by Shape), so
  // the sum fits int64.
  const int64_t length = ConvTransposeOutputLength(in, kernel, stride, pad_begin, pad_end,
                                                   dilation, output_padding);
  if (length < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the output's ", axis, " would be ", length, " (input ", in, ", kernel ", kernel,
        ", stride ", stride, ", padding ", pad_begin, " + ", pad_end,
        "): the padding removes more than the transposed convolution makes"));
  }
  return length;
}

absl::StatusOr<Shape> ConvTransposeShape(const ConvTranspose2dAttrs& a,
                                         absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const Shape& weight = operands[1];
  SY_RETURN_IF_ERROR(ops_internal::CheckNchw(input, "input"));
  SY_RETURN_IF_ERROR(ops_internal::CheckRank(
      weight, "weight", 4, "(in_channels, out_channels / groups, kH, kW)"));
  for (int64_t d : weight.dims()) {
    if (d < 1 || d > kMaxAttrWindowValue) {
      return absl::InvalidArgumentError(absl::StrCat(
          "weight ", weight.ToString(), " must have dimensions in [1, 2^30]"));
    }
  }
  if (input.dim(2) > kMaxAttrWindowValue || input.dim(3) > kMaxAttrWindowValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", input.ToString(), " is larger than 2^30 along H or W"));
  }
  if (input.dim(1) != weight.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "weight ", weight.ToString(), " is for ", weight.dim(0), " input channels; input ",
        input.ToString(), " has ", input.dim(1)));
  }
  if (input.dim(1) % a.groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(), " has ", input.dim(1),
        " channels, not divisible by attribute 'groups' (", a.groups, ")"));
  }
  const int64_t out_channels = weight.dim(1) * a.groups;
  if (operands.size() > 2 && operands[2] != Shape({out_channels})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bias must be [", out_channels, "] (one value per output channel), got ",
        operands[2].ToString()));
  }
  SY_ASSIGN_OR_RETURN(int64_t out_h,
                      OutputLength("height", input.dim(2), weight.dim(2), a.stride_h,
                                   a.pad_top, a.pad_bottom, a.dilation_h, a.output_padding_h));
  SY_ASSIGN_OR_RETURN(int64_t out_w,
                      OutputLength("width", input.dim(3), weight.dim(3), a.stride_w,
                                   a.pad_left, a.pad_right, a.dilation_w, a.output_padding_w));
  if (ops_internal::SaturatingProduct({input.dim(0), out_channels, out_h, out_w}) ==
      std::numeric_limits<int64_t>::max()) {
    return absl::InvalidArgumentError("the output is too large");
  }
  return Shape({input.dim(0), out_channels, out_h, out_w});
}

// 2 * N * C * H * W * (O / groups) * kH * kW, plus the bias.
int64_t ConvTransposeFlops(const AttrMap&, absl::Span<const Shape> operands,
                           const Shape& output) {
  if (operands.size() < 2 || operands[0].rank() != 4 || operands[1].rank() != 4) return 0;
  const Shape& weight = operands[1];
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct({2, operands[0].num_elements(), weight.dim(1),
                                        weight.dim(2), weight.dim(3)}),
       operands.size() > 2 ? output.num_elements() : 0});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"conv_transpose2d", {{"input"}, {"weight"}, {"bias", /*optional=*/true}},
     ops_internal::FloatingDTypes()},
    &ConvTransposeShape, &ConvTransposeFlops));

}  // namespace
}  // namespace switchyard
