#include "ops/pool_attrs.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::DefaultOf;
using ops_internal::GetPair;
using ops_internal::Pair;
using ops_internal::PairRule;
using ops_internal::PairToString;
using ops_internal::PairValue;

MaxPool2dAttrs MaxPool2dAttrs::Square(int64_t kernel, int64_t stride) {
  MaxPool2dAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  return a;
}

const std::vector<AttrSpec>& MaxPool2dAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = MaxPool2dAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"kernel_size", AttrType::kInts, std::nullopt,
         "2 values (height, width), each >= 1"},
        {"stride", AttrType::kInts, DefaultOf(d, "stride"),
         "2 values, each >= 1; [] for the kernel size"},
        {"padding", AttrType::kInts, DefaultOf(d, "padding"),
         "2 values, each >= 0 and <= kernel_size / 2"},
        {"dilation", AttrType::kInts, DefaultOf(d, "dilation"),
         "2 values, each >= 1"},
        {"ceil_mode", AttrType::kBool, DefaultOf(d, "ceil_mode"),
         "ceil instead of floor for the output size"},
    };
  }();
  return *specs;
}

absl::StatusOr<MaxPool2dAttrs> MaxPool2dAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "max_pool2d"));
  MaxPool2dAttrs a;
  SY_ASSIGN_OR_RETURN(Pair kernel, GetPair(attrs, "kernel_size", std::nullopt,
                                           PairRule::kPositive));
  // Absent or empty (the schema's default): the kernel size.
  Pair stride = kernel;
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> given,
                      attrs.GetInts("stride", std::vector<int64_t>{}));
  if (!given.empty()) {
    SY_ASSIGN_OR_RETURN(
        stride, GetPair(attrs, "stride", std::nullopt, PairRule::kPositive));
  }
  SY_ASSIGN_OR_RETURN(Pair pad,
                      GetPair(attrs, "padding", Pair{a.pad_h, a.pad_w},
                              PairRule::kNonNegative));
  SY_ASSIGN_OR_RETURN(Pair dilation, GetPair(attrs, "dilation",
                                             Pair{a.dilation_h, a.dilation_w},
                                             PairRule::kPositive));
  SY_ASSIGN_OR_RETURN(a.ceil_mode, attrs.GetBool("ceil_mode", a.ceil_mode));
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
  a.kernel_h = kernel[0];
  a.kernel_w = kernel[1];
  a.stride_h = stride[0];
  a.stride_w = stride[1];
  a.pad_h = pad[0];
  a.pad_w = pad[1];
  a.dilation_h = dilation[0];
  a.dilation_w = dilation[1];
  return a;
}

AttrMap MaxPool2dAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("kernel_size", PairValue(kernel_h, kernel_w));
  attrs.Set("stride", stride_h == 0 && stride_w == 0
                          ? std::vector<int64_t>{}
                          : PairValue(stride_h, stride_w));
  attrs.Set("padding", PairValue(pad_h, pad_w));
  attrs.Set("dilation", PairValue(dilation_h, dilation_w));
  attrs.Set("ceil_mode", ceil_mode);
  return attrs;
}

const std::vector<AttrSpec>& AvgPool2dAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = AvgPool2dAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"kernel_size", AttrType::kInts, std::nullopt,
         "2 values (height, width), each >= 1"},
        {"stride", AttrType::kInts, DefaultOf(d, "stride"),
         "2 values, each >= 1; [] for the kernel size"},
        {"padding", AttrType::kInts, DefaultOf(d, "padding"),
         "4 values (top, left, bottom, right), each >= 0 and < kernel_size"},
        {"ceil_mode", AttrType::kBool, DefaultOf(d, "ceil_mode"),
         "ceil instead of floor for the output size"},
        {"count_include_pad", AttrType::kBool,
         DefaultOf(d, "count_include_pad"),
         "divide by the window size including padding"},
    };
  }();
  return *specs;
}

absl::StatusOr<AvgPool2dAttrs> AvgPool2dAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "avg_pool2d"));
  AvgPool2dAttrs a;
  SY_ASSIGN_OR_RETURN(Pair kernel, GetPair(attrs, "kernel_size", std::nullopt,
                                           PairRule::kPositive));
  Pair stride = kernel;  // absent or []: the kernel size
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> given,
                      attrs.GetInts("stride", std::vector<int64_t>{}));
  if (!given.empty()) {
    SY_ASSIGN_OR_RETURN(
        stride, GetPair(attrs, "stride", std::nullopt, PairRule::kPositive));
  }
  SY_ASSIGN_OR_RETURN(
      std::vector<int64_t> pad,
      attrs.GetInts("padding", std::vector<int64_t>{0, 0, 0, 0}));
  // A pad of a whole kernel or more would allow a window made only of
  // padding, with no element to average (ONNX Runtime rejects it too).
  bool ok = pad.size() == 4;
  for (size_t i = 0; ok && i < 4; ++i) {
    ok = pad[i] >= 0 && pad[i] < kernel[i % 2];
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'padding' must have 4 values (top, left, bottom, right), "
        "each >= 0 and smaller than 'kernel_size' ",
        PairToString(kernel), " in its dimension, got [",
        absl::StrJoin(pad, ", "), "]"));
  }
  SY_ASSIGN_OR_RETURN(a.ceil_mode, attrs.GetBool("ceil_mode", a.ceil_mode));
  SY_ASSIGN_OR_RETURN(a.count_include_pad,
                      attrs.GetBool("count_include_pad", a.count_include_pad));
  a.kernel_h = kernel[0];
  a.kernel_w = kernel[1];
  a.stride_h = stride[0];
  a.stride_w = stride[1];
  a.pad_top = pad[0];
  a.pad_left = pad[1];
  a.pad_bottom = pad[2];
  a.pad_right = pad[3];
  return a;
}

AttrMap AvgPool2dAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("kernel_size", PairValue(kernel_h, kernel_w));
  attrs.Set("stride", stride_h == 0 && stride_w == 0
                          ? std::vector<int64_t>{}
                          : PairValue(stride_h, stride_w));
  attrs.Set("padding",
            std::vector<int64_t>{pad_top, pad_left, pad_bottom, pad_right});
  attrs.Set("ceil_mode", ceil_mode);
  attrs.Set("count_include_pad", count_include_pad);
  return attrs;
}

const std::vector<AttrSpec>& AdaptiveAvgPool2dAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"output_size", AttrType::kInts, std::nullopt,
       "2 values (height, width), each >= 1"},
  };
  return *specs;
}

absl::StatusOr<AdaptiveAvgPool2dAttrs> AdaptiveAvgPool2dAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "adaptive_avg_pool2d"));
  SY_ASSIGN_OR_RETURN(Pair size, GetPair(attrs, "output_size", std::nullopt,
                                         PairRule::kPositive));
  AdaptiveAvgPool2dAttrs a;
  a.output_h = size[0];
  a.output_w = size[1];
  return a;
}

AttrMap AdaptiveAvgPool2dAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("output_size", PairValue(output_h, output_w));
  return attrs;
}

}  // namespace switchyard
