#include "ops/conv_attrs.h"

#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::DefaultOf;
using ops_internal::GetPair;
using ops_internal::Pair;
using ops_internal::PairRule;
using ops_internal::PairValue;

const std::vector<AttrSpec>& Conv2dAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = Conv2dAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"stride", AttrType::kInts, DefaultOf(d, "stride"),
         "2 values (height, width), each >= 1"},
        {"padding", AttrType::kInts, DefaultOf(d, "padding"),
         "2 values (height, width), each >= 0; zeros on both sides"},
        {"dilation", AttrType::kInts, DefaultOf(d, "dilation"),
         "2 values (height, width), each >= 1"},
        {"groups", AttrType::kInt, DefaultOf(d, "groups"),
         ">= 1, dividing the input and output channels"},
    };
  }();
  return *specs;
}

absl::StatusOr<Conv2dAttrs> Conv2dAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "conv2d"));
  Conv2dAttrs a;
  SY_ASSIGN_OR_RETURN(Pair stride,
                      GetPair(attrs, "stride", Pair{a.stride_h, a.stride_w},
                              PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(Pair pad,
                      GetPair(attrs, "padding", Pair{a.pad_h, a.pad_w},
                              PairRule::kNonNegative));
  SY_ASSIGN_OR_RETURN(Pair dilation, GetPair(attrs, "dilation",
                                             Pair{a.dilation_h, a.dilation_w},
                                             PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(
      a.groups, ops_internal::GetIntAtLeast(attrs, "groups", a.groups, 1));
  a.stride_h = stride[0];
  a.stride_w = stride[1];
  a.pad_h = pad[0];
  a.pad_w = pad[1];
  a.dilation_h = dilation[0];
  a.dilation_w = dilation[1];
  return a;
}

AttrMap Conv2dAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("stride", PairValue(stride_h, stride_w));
  attrs.Set("padding", PairValue(pad_h, pad_w));
  attrs.Set("dilation", PairValue(dilation_h, dilation_w));
  attrs.Set("groups", groups);
  return attrs;
}

}  // namespace switchyard
