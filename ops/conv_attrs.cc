#include "ops/conv_attrs.h"

#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::GetPair;
using ops_internal::Pair;
using ops_internal::PairRule;

absl::StatusOr<Conv2dAttrs> ParseConv2dAttrs(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckKnownAttrs(
      attrs, "conv2d", {"dilation", "groups", "padding", "stride"}));
  SY_ASSIGN_OR_RETURN(
      Pair stride, GetPair(attrs, "stride", Pair{1, 1}, PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(Pair pad, GetPair(attrs, "padding", Pair{0, 0},
                                        PairRule::kNonNegative));
  SY_ASSIGN_OR_RETURN(Pair dilation, GetPair(attrs, "dilation", Pair{1, 1},
                                             PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(int64_t groups,
                      ops_internal::GetIntAtLeast(attrs, "groups", 1, 1));
  return Conv2dAttrs{stride[0],   stride[1],   pad[0], pad[1],
                     dilation[0], dilation[1], groups};
}

}  // namespace switchyard
