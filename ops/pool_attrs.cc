#include "ops/pool_attrs.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::GetPair;
using ops_internal::Pair;
using ops_internal::PairRule;
using ops_internal::PairToString;

absl::StatusOr<MaxPool2dAttrs> ParseMaxPool2dAttrs(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckKnownAttrs(
      attrs, "max_pool2d",
      {"ceil_mode", "dilation", "kernel_size", "padding", "stride"}));
  SY_ASSIGN_OR_RETURN(Pair kernel, GetPair(attrs, "kernel_size", std::nullopt,
                                           PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(Pair stride,
                      GetPair(attrs, "stride", kernel, PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(Pair pad, GetPair(attrs, "padding", Pair{0, 0},
                                        PairRule::kNonNegative));
  SY_ASSIGN_OR_RETURN(Pair dilation, GetPair(attrs, "dilation", Pair{1, 1},
                                             PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(bool ceil_mode, attrs.GetBool("ceil_mode", false));
  // PyTorch: "pad should be smaller than or equal to half of kernel size".
  // A window made only of padding would have no element to take the max of.
  for (int i = 0; i < 2; ++i) {
    if (pad[i] > kernel[i] / 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'padding' ", PairToString(pad),
          " must be at most half of 'kernel_size' ", PairToString(kernel),
          " in each dimension (pad <= kernel_size / 2, as in PyTorch)"));
    }
  }
  return MaxPool2dAttrs{kernel[0], kernel[1],   stride[0],
                        stride[1], pad[0],      pad[1],
                        dilation[0], dilation[1], ceil_mode};
}

absl::StatusOr<AdaptiveAvgPool2dAttrs> ParseAdaptiveAvgPool2dAttrs(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckKnownAttrs(
      attrs, "adaptive_avg_pool2d", {"output_size"}));
  SY_ASSIGN_OR_RETURN(Pair size, GetPair(attrs, "output_size", std::nullopt,
                                         PairRule::kPositive));
  return AdaptiveAvgPool2dAttrs{size[0], size[1]};
}

}  // namespace switchyard
