// Window arithmetic (pool_geometry.h) and the typed attribute structs
// (conv_attrs.h, pool_attrs.h, tensor_attrs.h, norm_attrs.h) that layers,
// the functional API and kernels use. Expected values follow
// PyTorch's aten pooling_output_shape and conv output formulas.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/attributes.h"
#include "core/op_def.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/conv_attrs.h"
#include "ops/norm_attrs.h"
#include "ops/op_test_util.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/flatten_attrs.h"
#include "ops/softmax_attrs.h"
#include "ops/dropout_attrs.h"

namespace switchyard {
namespace op_testing {
namespace {

using ::absl::StatusCode;

// in, kernel, stride, pad, dilation, ceil_mode
TEST(PooledLengthTest, FloorMode) {
  EXPECT_EQ(PooledLength(224, 2, 2, 0, 1, false), 112);  // VGG
  EXPECT_EQ(PooledLength(112, 3, 2, 1, 1, false), 56);   // ResNet stem
  EXPECT_EQ(PooledLength(55, 3, 2, 0, 1, false), 27);    // AlexNet
  EXPECT_EQ(PooledLength(7, 2, 2, 0, 1, false), 3);
  EXPECT_EQ(PooledLength(10, 3, 1, 0, 2, false), 6);  // dilation 2: span 5
  EXPECT_EQ(PooledLength(5, 2, 2, 1, 1, false), 3);
  EXPECT_EQ(PooledLength(6, 3, 2, 1, 1, false), 3);
}

TEST(PooledLengthTest, CeilMode) {
  EXPECT_EQ(PooledLength(7, 2, 2, 0, 1, true), 4);
  EXPECT_EQ(PooledLength(5, 2, 2, 1, 1, true), 3);
  EXPECT_EQ(PooledLength(6, 3, 2, 1, 1, true), 4);
  EXPECT_EQ(PooledLength(112, 3, 2, 0, 1, true), 56);  // GoogLeNet
  EXPECT_EQ(PooledLength(56, 3, 2, 0, 1, true), 28);
  EXPECT_EQ(PooledLength(14, 2, 2, 0, 1, true), 7);  // exact: same as floor
}

TEST(PooledLengthTest, CeilModeDropsWindowStartingInRightPadding) {
  // (5 + 2 - 1 - 1 + 2) / 3 + 1 = 3, but window 2 would start at 6 = in + pad,
  // entirely in the right padding; PyTorch gives 2.
  EXPECT_EQ(PooledLength(5, 2, 3, 1, 1, true), 2);
  EXPECT_EQ(PooledLength(5, 2, 3, 1, 1, false), 2);
}

TEST(PooledLengthTest, CeilModeWindowMayOverhangTheInput) {
  // The only window starts at 0, inside the input; PyTorch gives 1.
  EXPECT_EQ(PooledLength(2, 3, 2, 0, 1, true), 1);
  EXPECT_EQ(PooledLength(2, 3, 2, 0, 1, false), 0);
}

TEST(PooledLengthTest, TooSmallInputGivesLessThanOne) {
  EXPECT_LT(PooledLength(2, 3, 1, 0, 1, false), 1);
  EXPECT_LT(PooledLength(2, 3, 1, 0, 1, true), 1);
  EXPECT_LT(PooledLength(4, 3, 1, 0, 2, false), 1);  // effective kernel 5
}

// in, kernel, stride, pad, dilation
TEST(ConvOutputLengthTest, MatchesPyTorch) {
  EXPECT_EQ(ConvOutputLength(224, 3, 1, 1, 1), 224);  // VGG
  EXPECT_EQ(ConvOutputLength(224, 7, 2, 3, 1), 112);  // ResNet stem
  EXPECT_EQ(ConvOutputLength(224, 11, 4, 2, 1), 55);  // AlexNet
  EXPECT_EQ(ConvOutputLength(7, 3, 2, 0, 1), 3);
  EXPECT_EQ(ConvOutputLength(8, 3, 2, 0, 1), 3);
  EXPECT_EQ(ConvOutputLength(32, 3, 1, 2, 2), 32);  // dilated, "same"
  EXPECT_EQ(ConvOutputLength(5, 5, 1, 0, 1), 1);
}

TEST(ConvOutputLengthTest, FloorsNegativeSpans) {
  // floor(-3 / 2) + 1 = -1; truncating division would give 0.
  EXPECT_EQ(ConvOutputLength(2, 5, 2, 0, 1), -1);
  EXPECT_EQ(ConvOutputLength(2, 5, 1, 0, 1), -2);
}

TEST(AdaptiveWindowTest, Shrinking) {
  // 7 -> 3: [0, 3), [2, 5), [4, 7); windows overlap, as in PyTorch.
  EXPECT_EQ(AdaptiveStart(0, 7, 3), 0);
  EXPECT_EQ(AdaptiveEnd(0, 7, 3), 3);
  EXPECT_EQ(AdaptiveStart(1, 7, 3), 2);
  EXPECT_EQ(AdaptiveEnd(1, 7, 3), 5);
  EXPECT_EQ(AdaptiveStart(2, 7, 3), 4);
  EXPECT_EQ(AdaptiveEnd(2, 7, 3), 7);
}

TEST(AdaptiveWindowTest, IdentityAndGlobal) {
  for (int64_t i = 0; i < 7; ++i) {
    EXPECT_EQ(AdaptiveStart(i, 7, 7), i);
    EXPECT_EQ(AdaptiveEnd(i, 7, 7), i + 1);
  }
  EXPECT_EQ(AdaptiveStart(0, 13, 1), 0);
  EXPECT_EQ(AdaptiveEnd(0, 13, 1), 13);
}

TEST(AdaptiveWindowTest, Growing) {
  // 2 -> 5: every window is non-empty and inside the input.
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_GE(AdaptiveStart(i, 2, 5), 0);
    EXPECT_GT(AdaptiveEnd(i, 2, 5), AdaptiveStart(i, 2, 5));
    EXPECT_LE(AdaptiveEnd(i, 2, 5), 2);
  }
  EXPECT_EQ(AdaptiveStart(2, 2, 5), 0);  // floor(4/5)
  EXPECT_EQ(AdaptiveEnd(2, 2, 5), 2);    // ceil(6/5)
}

TEST(Conv2dAttrsTest, Defaults) {
  absl::StatusOr<Conv2dAttrs> a = Conv2dAttrs::FromAttrMap(AttrMap());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->stride_h, 1);
  EXPECT_EQ(a->stride_w, 1);
  EXPECT_EQ(a->pad_h, 0);
  EXPECT_EQ(a->pad_w, 0);
  EXPECT_EQ(a->dilation_h, 1);
  EXPECT_EQ(a->dilation_w, 1);
  EXPECT_EQ(a->groups, 1);
  EXPECT_EQ(Conv2dAttrs().ToAttrMap().ToString(),
            "dilation=[1, 1], groups=1, padding=[0, 0], stride=[1, 1]");
}

TEST(Conv2dAttrsTest, ReadsEveryField) {
  absl::StatusOr<Conv2dAttrs> a = Conv2dAttrs::FromAttrMap(
      Attrs({{"stride", Ints{2, 3}},
             {"padding", Ints{4, 5}},
             {"dilation", Ints{6, 7}},
             {"groups", int64_t{8}}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->stride_h, 2);
  EXPECT_EQ(a->stride_w, 3);
  EXPECT_EQ(a->pad_h, 4);
  EXPECT_EQ(a->pad_w, 5);
  EXPECT_EQ(a->dilation_h, 6);
  EXPECT_EQ(a->dilation_w, 7);
  EXPECT_EQ(a->groups, 8);
  EXPECT_EQ(a->ToAttrMap().ToString(),
            "dilation=[6, 7], groups=8, padding=[4, 5], stride=[2, 3]");
}

TEST(Conv2dAttrsTest, KernelsOldNameIsTheSame) {
  absl::StatusOr<Conv2dAttrs> a =
      ParseConv2dAttrs(Attrs({{"padding", Ints{1, 2}}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->pad_h, 1);
  EXPECT_EQ(a->pad_w, 2);
}

TEST(Conv2dAttrsTest, RejectsBadValues) {
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"stride", Ints{0, 1}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'stride' must have 2 positive values, got "
                       "[0, 1]"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"stride", Ints{2}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'stride' must have 2 positive values, got "
                       "[2]"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"padding", Ints{1, -1}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'padding' must have 2 non-negative values"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"padding", Ints{1, 1, 1}}})),
              StatusIs(StatusCode::kInvalidArgument, "'padding'"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"dilation", Ints{1, 0}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'dilation' must have 2 positive values"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"groups", int64_t{0}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'groups' must be >= 1, got 0"));
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"stride", int64_t{2}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'stride' of conv2d must be int list, got "
                       "int 2"));
  EXPECT_THAT(
      Conv2dAttrs::FromAttrMap(Attrs({{"padding", Ints{int64_t{1} << 40, 0}}})),
      StatusIs(StatusCode::kInvalidArgument,
               "attribute 'padding' value 1099511627776 is too large"));
}

TEST(Conv2dAttrsTest, RejectsUnknownAttribute) {
  EXPECT_THAT(Conv2dAttrs::FromAttrMap(Attrs({{"strides", Ints{2, 2}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "unknown attribute 'strides' for conv2d; known: "
                       "stride, padding, dilation, groups"));
}

TEST(Conv2dAttrsTest, SpecsCarryTheStructDefaults) {
  const std::vector<AttrSpec>& specs = Conv2dAttrs::Specs();
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[0].name, "stride");
  EXPECT_EQ(specs[0].type, AttrType::kInts);
  EXPECT_EQ(specs[0].default_value, AttrValue(Ints{1, 1}));
  EXPECT_EQ(specs[1].default_value, AttrValue(Ints{0, 0}));
  EXPECT_EQ(specs[3].name, "groups");
  EXPECT_EQ(specs[3].default_value, AttrValue(int64_t{1}));
}

TEST(MaxPool2dAttrsTest, StrideDefaultsToKernelSize) {
  absl::StatusOr<MaxPool2dAttrs> a =
      MaxPool2dAttrs::FromAttrMap(Attrs({{"kernel_size", Ints{3, 2}}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->kernel_h, 3);
  EXPECT_EQ(a->kernel_w, 2);
  EXPECT_EQ(a->stride_h, 3);
  EXPECT_EQ(a->stride_w, 2);
  EXPECT_EQ(a->pad_h, 0);
  EXPECT_EQ(a->pad_w, 0);
  EXPECT_EQ(a->dilation_h, 1);
  EXPECT_EQ(a->dilation_w, 1);
  EXPECT_FALSE(a->ceil_mode);
  // An empty stride, the schema's default (PyTorch's stride=[]), too.
  absl::StatusOr<MaxPool2dAttrs> b = MaxPool2dAttrs::FromAttrMap(
      Attrs({{"kernel_size", Ints{3, 2}}, {"stride", Ints{}}}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->stride_h, 3);
  EXPECT_EQ(b->stride_w, 2);
}

TEST(MaxPool2dAttrsTest, ToAttrMap) {
  MaxPool2dAttrs a;
  a.kernel_h = a.kernel_w = 2;
  EXPECT_EQ(a.ToAttrMap().ToString(),
            "ceil_mode=false, dilation=[1, 1], kernel_size=[2, 2], "
            "padding=[0, 0], stride=[]");
  EXPECT_EQ(MaxPool2dAttrs::Square(3, 2).ToAttrMap().ToString(),
            "ceil_mode=false, dilation=[1, 1], kernel_size=[3, 3], "
            "padding=[0, 0], stride=[2, 2]");
}

TEST(MaxPool2dAttrsTest, ReadsEveryField) {
  absl::StatusOr<MaxPool2dAttrs> a = MaxPool2dAttrs::FromAttrMap(
      Attrs({{"kernel_size", Ints{3, 5}},
             {"stride", Ints{1, 2}},
             {"padding", Ints{1, 2}},
             {"dilation", Ints{2, 3}},
             {"ceil_mode", true}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->stride_h, 1);
  EXPECT_EQ(a->stride_w, 2);
  EXPECT_EQ(a->pad_h, 1);
  EXPECT_EQ(a->pad_w, 2);
  EXPECT_EQ(a->dilation_h, 2);
  EXPECT_EQ(a->dilation_w, 3);
  EXPECT_TRUE(a->ceil_mode);
}

TEST(MaxPool2dAttrsTest, RejectsBadValues) {
  EXPECT_THAT(MaxPool2dAttrs::FromAttrMap(AttrMap()),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'kernel_size' of max_pool2d is required"));
  EXPECT_THAT(MaxPool2dAttrs::FromAttrMap(Attrs({{"kernel_size", Ints{0, 2}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'kernel_size' must have 2 positive values"));
  EXPECT_THAT(
      MaxPool2dAttrs::FromAttrMap(
          Attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{2, 0}}})),
      StatusIs(StatusCode::kInvalidArgument,
               "attribute 'stride' must have 2 positive values, got [2, 0]"));
  EXPECT_THAT(
      MaxPool2dAttrs::FromAttrMap(
          Attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{2}}})),
      StatusIs(StatusCode::kInvalidArgument,
               "attribute 'stride' must have 2 positive values, got [2]"));
  EXPECT_THAT(
      MaxPool2dAttrs::FromAttrMap(
          Attrs({{"kernel_size", Ints{3, 3}}, {"padding", Ints{2, 1}}})),
      StatusIs(StatusCode::kInvalidArgument,
               "attribute 'padding' [2, 1] must be at most half of "
               "'kernel_size' [3, 3]"));
  // kernel 2: pad 1 is allowed (2 / 2), as in PyTorch.
  EXPECT_TRUE(MaxPool2dAttrs::FromAttrMap(Attrs({{"kernel_size", Ints{2, 2}},
                                                 {"padding", Ints{1, 1}}}))
                  .ok());
  EXPECT_THAT(MaxPool2dAttrs::FromAttrMap(Attrs(
                  {{"kernel_size", Ints{2, 2}}, {"ceil_mode", int64_t{1}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'ceil_mode' of max_pool2d must be bool"));
  EXPECT_THAT(MaxPool2dAttrs::FromAttrMap(
                  Attrs({{"kernel_size", Ints{2, 2}}, {"kernel", Ints{2, 2}}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "unknown attribute 'kernel' for max_pool2d; known: "
                       "kernel_size, stride, padding, dilation, ceil_mode"));
}

TEST(AdaptiveAvgPool2dAttrsTest, ReadsAndValidates) {
  absl::StatusOr<AdaptiveAvgPool2dAttrs> a = AdaptiveAvgPool2dAttrs::FromAttrMap(
      Attrs({{"output_size", Ints{7, 5}}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->output_h, 7);
  EXPECT_EQ(a->output_w, 5);
  EXPECT_EQ(a->ToAttrMap().ToString(), "output_size=[7, 5]");
  EXPECT_THAT(AdaptiveAvgPool2dAttrs::FromAttrMap(AttrMap()),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'output_size' of adaptive_avg_pool2d is "
                       "required"));
  EXPECT_THAT(
      AdaptiveAvgPool2dAttrs::FromAttrMap(Attrs({{"output_size", Ints{7, 0}}})),
      StatusIs(StatusCode::kInvalidArgument,
               "attribute 'output_size' must have 2 positive values"));
  EXPECT_TRUE(ParseAdaptiveAvgPool2dAttrs(Attrs({{"output_size", Ints{1, 1}}}))
                  .ok());
}

TEST(FlattenAttrsTest, DefaultsAndFields) {
  absl::StatusOr<FlattenAttrs> a = FlattenAttrs::FromAttrMap(AttrMap());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->start_dim, 1);
  EXPECT_EQ(a->end_dim, -1);
  absl::StatusOr<FlattenAttrs> b = FlattenAttrs::FromAttrMap(
      Attrs({{"start_dim", int64_t{0}}, {"end_dim", int64_t{2}}}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->start_dim, 0);
  EXPECT_EQ(b->end_dim, 2);
  EXPECT_EQ(b->ToAttrMap().ToString(), "end_dim=2, start_dim=0");
  EXPECT_THAT(FlattenAttrs::FromAttrMap(Attrs({{"start_dim", 1.0}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'start_dim' of flatten must be int"));
}

TEST(SoftmaxAttrsTest, DimIsRequired) {
  absl::StatusOr<SoftmaxAttrs> a =
      SoftmaxAttrs::FromAttrMap(Attrs({{"dim", int64_t{-1}}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dim, -1);
  EXPECT_EQ(a->ToAttrMap().ToString(), "dim=-1");
  EXPECT_THAT(SoftmaxAttrs::FromAttrMap(AttrMap()),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'dim' of softmax is required"));
}

TEST(DropoutAttrsTest, ProbabilityInZeroOne) {
  absl::StatusOr<DropoutAttrs> a = DropoutAttrs::FromAttrMap(AttrMap());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->p, 0.5);
  absl::StatusOr<DropoutAttrs> b =
      DropoutAttrs::FromAttrMap(Attrs({{"p", int64_t{1}}}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->p, 1.0);
  EXPECT_EQ(b->ToAttrMap().ToString(), "p=1");
  EXPECT_THAT(DropoutAttrs::FromAttrMap(Attrs({{"p", 1.5}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'p' must be a probability in [0, 1], got "
                       "1.5"));
}

TEST(BatchNormAttrsTest, EpsilonPositiveAndFinite) {
  absl::StatusOr<BatchNormAttrs> a = BatchNormAttrs::FromAttrMap(AttrMap());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->epsilon, 1e-5);
  absl::StatusOr<BatchNormAttrs> b =
      BatchNormAttrs::FromAttrMap(Attrs({{"epsilon", 1e-3}}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->epsilon, 1e-3);
  EXPECT_EQ(BatchNormAttrs().ToAttrMap().ToString(), "epsilon=1e-05");
  EXPECT_THAT(BatchNormAttrs::FromAttrMap(Attrs({{"epsilon", 0.0}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "attribute 'epsilon' must be > 0 and finite, got 0 "
                       "(PyTorch's default is 1e-5)"));
  EXPECT_THAT(BatchNormAttrs::FromAttrMap(Attrs({{"eps", 1e-5}})),
              StatusIs(StatusCode::kInvalidArgument,
                       "unknown attribute 'eps' for batch_norm; known: "
                       "epsilon"));
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
