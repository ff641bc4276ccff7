// linear, conv2d, max_pool2d, adaptive_avg_pool2d and batch_norm, looked up
// through
// OpRegistry::Global() (so the tests also prove the ops registered
// themselves). Expected shapes are what PyTorch gives for the same layers.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/attributes.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/passes/shape_inference.h"
#include "core/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_test_util.h"

namespace switchyard {
namespace op_testing {
namespace {

// ---------------------------------------------------------------- linear

TEST(LinearTest, Shapes) {
  EXPECT_THAT(Infer("linear", {}, {Shape({1, 25088}), Shape({4096, 25088}),
                                   Shape({4096})}),
              IsOkAndHolds(Shape({1, 4096})));
  EXPECT_THAT(Infer("linear", {}, {Shape({2, 5, 8}), Shape({3, 8})}),
              IsOkAndHolds(Shape({2, 5, 3})));
  EXPECT_THAT(Infer("linear", {}, {Shape({8}), Shape({3, 8})}),
              IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Infer("linear", {}, {Shape({0, 8}), Shape({3, 8})}),
              IsOkAndHolds(Shape({0, 3})));
}

TEST(LinearTest, Flops) {
  EXPECT_EQ(FlopsOf("linear", {}, {Shape({2, 5, 8}), Shape({3, 8})}),
            2 * 10 * 8 * 3);
  EXPECT_EQ(FlopsOf("linear", {}, {Shape({2, 8}), Shape({3, 8}), Shape({3})}),
            2 * 2 * 8 * 3 + 2 * 3);
}

TEST(LinearTest, RejectsBadOperands) {
  EXPECT_THAT(Infer("linear", {}, {Shape(), Shape({3, 1})}),
              StatusIs(kInvalid, "input must have rank >= 1"));
  EXPECT_THAT(Infer("linear", {}, {Shape({2, 8}), Shape({3, 8, 1})}),
              StatusIs(kInvalid,
                       "weight must be rank 2 (out_features, in_features), "
                       "got [3, 8, 1]"));
  EXPECT_THAT(Infer("linear", {}, {Shape({2, 7}), Shape({3, 8})}),
              StatusIs(kInvalid,
                       "weight [3, 8] expects 8 input features but input "
                       "[2, 7] has 7"));
  EXPECT_THAT(
      Infer("linear", {}, {Shape({2, 8}), Shape({3, 8}), Shape({4})}),
      StatusIs(kInvalid, "bias must be [3]"));
  EXPECT_THAT(
      Infer("linear", {}, {Shape({2, 8}), Shape({3, 8}), Shape({1, 3})}),
      StatusIs(kInvalid, "got [1, 3]"));
  EXPECT_THAT(Infer("linear", {}, {Shape({2, 8})}),
              StatusIs(kInvalid,
                       "linear takes 2 to 3 operands (input, weight, bias?), "
                       "got 1"));
  EXPECT_THAT(Infer("linear", Attrs({{"transpose", true}}),
                    {Shape({2, 8}), Shape({3, 8})}),
              StatusIs(kInvalid,
                       "unknown attribute 'transpose' for linear; known: "
                       "(none)"));
}

// ---------------------------------------------------------------- conv2d

TEST(Conv2dTest, VggAndResNetShapes) {
  // VGG: 3x3, padding 1 keeps the size.
  EXPECT_THAT(Infer("conv2d", Attrs({{"padding", Ints{1, 1}}}),
                    {Shape({1, 3, 224, 224}), Shape({64, 3, 3, 3}),
                     Shape({64})}),
              IsOkAndHolds(Shape({1, 64, 224, 224})));
  // ResNet stem: 7x7, stride 2, padding 3.
  EXPECT_THAT(Infer("conv2d",
                    Attrs({{"stride", Ints{2, 2}}, {"padding", Ints{3, 3}}}),
                    {Shape({8, 3, 224, 224}), Shape({64, 3, 7, 7})}),
              IsOkAndHolds(Shape({8, 64, 112, 112})));
  // AlexNet: 11x11, stride 4, padding 2.
  EXPECT_THAT(Infer("conv2d",
                    Attrs({{"stride", Ints{4, 4}}, {"padding", Ints{2, 2}}}),
                    {Shape({1, 3, 224, 224}), Shape({64, 3, 11, 11})}),
              IsOkAndHolds(Shape({1, 64, 55, 55})));
}

TEST(Conv2dTest, DefaultsAsymmetricDilatedAndGrouped) {
  EXPECT_THAT(Infer("conv2d", {}, {Shape({1, 3, 5, 5}), Shape({2, 3, 5, 5})}),
              IsOkAndHolds(Shape({1, 2, 1, 1})));
  EXPECT_THAT(Infer("conv2d",
                    Attrs({{"stride", Ints{1, 2}}, {"padding", Ints{0, 1}}}),
                    {Shape({1, 3, 10, 9}), Shape({4, 3, 3, 1})}),
              IsOkAndHolds(Shape({1, 4, 8, 6})));
  EXPECT_THAT(Infer("conv2d",
                    Attrs({{"dilation", Ints{2, 2}}, {"padding", Ints{2, 2}}}),
                    {Shape({1, 3, 32, 32}), Shape({4, 3, 3, 3})}),
              IsOkAndHolds(Shape({1, 4, 32, 32})));
  // Depthwise (MobileNet): groups == channels, weight [C, 1, 3, 3].
  EXPECT_THAT(Infer("conv2d",
                    Attrs({{"groups", int64_t{32}}, {"padding", Ints{1, 1}}}),
                    {Shape({1, 32, 112, 112}), Shape({32, 1, 3, 3})}),
              IsOkAndHolds(Shape({1, 32, 112, 112})));
  // groups=2, 8 -> 6 channels: weight [6, 4, 1, 1].
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{2}}}),
                    {Shape({2, 8, 4, 4}), Shape({6, 4, 1, 1})}),
              IsOkAndHolds(Shape({2, 6, 4, 4})));
  // An empty batch is fine, as in PyTorch.
  EXPECT_THAT(Infer("conv2d", {}, {Shape({0, 3, 5, 5}), Shape({2, 3, 3, 3})}),
              IsOkAndHolds(Shape({0, 2, 3, 3})));
}

TEST(Conv2dTest, Flops) {
  // 2 * N * O * Ho * Wo * (C / groups) * kH * kW, + N * O * Ho * Wo bias adds.
  EXPECT_EQ(FlopsOf("conv2d", Attrs({{"padding", Ints{1, 1}}}),
                    {Shape({1, 3, 224, 224}), Shape({64, 3, 3, 3})}),
            int64_t{2} * 64 * 224 * 224 * 3 * 3 * 3);
  EXPECT_EQ(FlopsOf("conv2d", Attrs({{"groups", int64_t{2}}}),
                    {Shape({2, 8, 4, 4}), Shape({6, 4, 1, 1}), Shape({6})}),
            2 * (2 * 6 * 4 * 4) * 4 + 2 * 6 * 4 * 4);
}

TEST(Conv2dTest, RejectsBadInput) {
  EXPECT_THAT(Infer("conv2d", {}, {Shape({1, 3, 224}), Shape({64, 3, 3, 3})}),
              StatusIs(kInvalid,
                       "input must be rank 4 (N, C, H, W), got [1, 3, 224]"));
  EXPECT_THAT(Infer("conv2d", {}, {Shape({1, 3, 0, 5}), Shape({2, 3, 1, 1})}),
              StatusIs(kInvalid, "input [1, 3, 0, 5] has an empty"));
  EXPECT_THAT(Infer("conv2d", {}, {Shape({1, 3, 8, 8}), Shape({64, 3, 3})}),
              StatusIs(kInvalid, "weight must be rank 4"));
  EXPECT_THAT(Infer("conv2d", {}, {Shape({1, 3, 8, 8}), Shape({64, 3, 0, 3})}),
              StatusIs(kInvalid,
                       "weight [64, 3, 0, 3] must have non-zero dimensions"));
}

TEST(Conv2dTest, RejectsChannelMismatch) {
  EXPECT_THAT(
      Infer("conv2d", {}, {Shape({1, 3, 8, 8}), Shape({64, 4, 3, 3})}),
      StatusIs(kInvalid,
               "weight [64, 4, 3, 3] expects 4 input channels per group "
               "(input has 3 channels, groups=1)"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{2}}}),
                    {Shape({1, 8, 8, 8}), Shape({4, 8, 3, 3})}),
              StatusIs(kInvalid, "expects 8 input channels per group (input "
                                 "has 8 channels, groups=2)"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{4}}}),
                    {Shape({1, 6, 8, 8}), Shape({4, 1, 3, 3})}),
              StatusIs(kInvalid,
                       "input [1, 6, 8, 8] has 6 channels, not divisible by "
                       "attribute 'groups' (4)"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{2}}}),
                    {Shape({1, 4, 8, 8}), Shape({3, 2, 3, 3})}),
              StatusIs(kInvalid,
                       "weight [3, 2, 3, 3] has 3 output channels, not "
                       "divisible by attribute 'groups' (2)"));
  EXPECT_THAT(Infer("conv2d", {},
                    {Shape({1, 3, 8, 8}), Shape({64, 3, 3, 3}), Shape({32})}),
              StatusIs(kInvalid,
                       "bias must be [64] (one value per output channel of "
                       "weight [64, 3, 3, 3]), got [32]"));
}

TEST(Conv2dTest, RejectsInputSmallerThanKernel) {
  EXPECT_THAT(
      Infer("conv2d", {}, {Shape({1, 3, 5, 5}), Shape({64, 3, 7, 7})}),
      StatusIs(kInvalid,
               "input [1, 3, 5, 5] is too small for the kernel: padded input "
               "is 5x5 (H x W, padding [0, 0]) but the effective kernel is "
               "7x7"));
  // Padding makes it fit.
  EXPECT_THAT(Infer("conv2d", Attrs({{"padding", Ints{1, 1}}}),
                    {Shape({1, 3, 5, 5}), Shape({64, 3, 7, 7})}),
              IsOkAndHolds(Shape({1, 64, 1, 1})));
  // Dilation 3 turns a 3x3 kernel into 7x7.
  EXPECT_THAT(Infer("conv2d", Attrs({{"dilation", Ints{1, 3}}}),
                    {Shape({1, 3, 6, 6}), Shape({4, 3, 3, 3})}),
              StatusIs(kInvalid, "effective kernel is 3x7"));
}

TEST(Conv2dTest, RejectsBadAttributes) {
  const std::vector<Shape> ok = {Shape({1, 3, 8, 8}), Shape({4, 3, 3, 3})};
  EXPECT_THAT(Infer("conv2d", Attrs({{"stride", Ints{0, 1}}}), ok),
              StatusIs(kInvalid,
                       "attribute 'stride' must have 2 positive values, got "
                       "[0, 1]"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"stride", Ints{2}}}), ok),
              StatusIs(kInvalid, "attribute 'stride' must have 2"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"padding", Ints{-1, 0}}}), ok),
              StatusIs(kInvalid,
                       "attribute 'padding' must have 2 non-negative values"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"dilation", Ints{0, 0}}}), ok),
              StatusIs(kInvalid, "attribute 'dilation'"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{0}}}), ok),
              StatusIs(kInvalid, "attribute 'groups' must be >= 1, got 0"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"groups", std::string("2")}}), ok),
              StatusIs(kInvalid,
                       "attribute 'groups' of conv2d must be int, got string "
                       "'2'"));
  EXPECT_THAT(Infer("conv2d", Attrs({{"pading", Ints{1, 1}}}), ok),
              StatusIs(kInvalid,
                       "unknown attribute 'pading' for conv2d; known: "
                       "stride, padding, dilation, groups"));
}

// ------------------------------------------------------------ max_pool2d

TEST(MaxPool2dTest, Shapes) {
  // VGG: kernel 2, stride defaults to the kernel size.
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}),
                    {Shape({1, 64, 224, 224})}),
              IsOkAndHolds(Shape({1, 64, 112, 112})));
  // ResNet: kernel 3, stride 2, padding 1.
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{3, 3}},
                                         {"stride", Ints{2, 2}},
                                         {"padding", Ints{1, 1}}}),
                    {Shape({1, 64, 112, 112})}),
              IsOkAndHolds(Shape({1, 64, 56, 56})));
  // AlexNet: kernel 3, stride 2 on 13x13.
  EXPECT_THAT(Infer("max_pool2d",
                    Attrs({{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}}}),
                    {Shape({1, 256, 13, 13})}),
              IsOkAndHolds(Shape({1, 256, 6, 6})));
  // Dilation 2 makes a 3x3 window span 5x5.
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{3, 3}},
                                         {"stride", Ints{1, 1}},
                                         {"dilation", Ints{2, 2}}}),
                    {Shape({1, 1, 10, 10})}),
              IsOkAndHolds(Shape({1, 1, 6, 6})));
}

TEST(MaxPool2dTest, CeilMode) {
  const AttrMap attrs = Attrs({{"kernel_size", Ints{2, 3}},
                               {"stride", Ints{2, 2}},
                               {"padding", Ints{1, 1}},
                               {"ceil_mode", true}});
  EXPECT_THAT(Infer("max_pool2d", attrs, {Shape({1, 1, 5, 6})}),
              IsOkAndHolds(Shape({1, 1, 3, 4})));
  EXPECT_THAT(Infer("max_pool2d",
                    Attrs({{"kernel_size", Ints{2, 3}},
                           {"stride", Ints{2, 2}},
                           {"padding", Ints{1, 1}}}),
                    {Shape({1, 1, 5, 6})}),
              IsOkAndHolds(Shape({1, 1, 3, 3})));
  EXPECT_THAT(Infer("max_pool2d",
                    Attrs({{"kernel_size", Ints{2, 2}}, {"ceil_mode", true}}),
                    {Shape({1, 1, 7, 7})}),
              IsOkAndHolds(Shape({1, 1, 4, 4})));
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}),
                    {Shape({1, 1, 7, 7})}),
              IsOkAndHolds(Shape({1, 1, 3, 3})));
  // GoogLeNet: kernel 3, stride 2, ceil_mode on 112x112.
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{3, 3}},
                                         {"stride", Ints{2, 2}},
                                         {"ceil_mode", true}}),
                    {Shape({1, 64, 112, 112})}),
              IsOkAndHolds(Shape({1, 64, 56, 56})));
  // The last window would start in the right padding only: dropped.
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{2, 2}},
                                         {"stride", Ints{3, 3}},
                                         {"padding", Ints{1, 1}},
                                         {"ceil_mode", true}}),
                    {Shape({1, 1, 5, 5})}),
              IsOkAndHolds(Shape({1, 1, 2, 2})));
}

TEST(MaxPool2dTest, Flops) {
  EXPECT_EQ(FlopsOf("max_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}),
                    {Shape({1, 64, 224, 224})}),
            int64_t{64} * 112 * 112 * 4);
}

TEST(MaxPool2dTest, RejectsBadInput) {
  const AttrMap k2 = Attrs({{"kernel_size", Ints{2, 2}}});
  EXPECT_THAT(Infer("max_pool2d", k2, {Shape({64, 224, 224})}),
              StatusIs(kInvalid,
                       "input must be rank 4 (N, C, H, W), got [64, 224, 224]"));
  EXPECT_THAT(Infer("max_pool2d", k2, {Shape({1, 0, 4, 4})}),
              StatusIs(kInvalid, "input [1, 0, 4, 4] has an empty"));
  EXPECT_THAT(
      Infer("max_pool2d", Attrs({{"kernel_size", Ints{3, 3}}}),
            {Shape({1, 1, 2, 5})}),
      StatusIs(kInvalid,
               "input [1, 1, 2, 5] is too small for the pooling window: "
               "kernel_size [3, 3], stride [3, 3], padding [0, 0], dilation "
               "[1, 1], ceil_mode false give an output of 0x1"));
}

TEST(MaxPool2dTest, RejectsBadAttributes) {
  const std::vector<Shape> x = {Shape({1, 1, 8, 8})};
  EXPECT_THAT(Infer("max_pool2d", {}, x),
              StatusIs(kInvalid,
                       "attribute 'kernel_size' of max_pool2d is required "
                       "(int list, 2 values (height, width), each >= 1)"));
  EXPECT_THAT(Infer("max_pool2d", Attrs({{"kernel_size", Ints{2}}}), x),
              StatusIs(kInvalid,
                       "attribute 'kernel_size' must have 2 positive values, "
                       "got [2]"));
  EXPECT_THAT(
      Infer("max_pool2d",
            Attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{0, 2}}}), x),
      StatusIs(kInvalid, "attribute 'stride' must have 2 positive values"));
  EXPECT_THAT(
      Infer("max_pool2d",
            Attrs({{"kernel_size", Ints{3, 3}}, {"padding", Ints{1, 2}}}), x),
      StatusIs(kInvalid,
               "attribute 'padding' [1, 2] must be at most half of "
               "'kernel_size' [3, 3]"));
  EXPECT_THAT(
      Infer("max_pool2d",
            Attrs({{"kernel_size", Ints{2, 2}}, {"dilation", Ints{1, 0}}}), x),
      StatusIs(kInvalid, "attribute 'dilation' must have 2 positive values"));
  EXPECT_THAT(Infer("max_pool2d",
                    Attrs({{"kernel_size", Ints{2, 2}},
                           {"ceil_mode", std::string("true")}}),
                    x),
              StatusIs(kInvalid,
                       "attribute 'ceil_mode' of max_pool2d must be bool"));
  EXPECT_THAT(Infer("max_pool2d",
                    Attrs({{"kernel_size", Ints{2, 2}}, {"strides", Ints{1, 1}}}),
                    x),
              StatusIs(kInvalid, "unknown attribute 'strides' for max_pool2d"));
}

// --------------------------------------------------- adaptive_avg_pool2d

TEST(AdaptiveAvgPool2dTest, Shapes) {
  const AttrMap seven = Attrs({{"output_size", Ints{7, 7}}});
  EXPECT_THAT(Infer("adaptive_avg_pool2d", seven, {Shape({1, 512, 7, 7})}),
              IsOkAndHolds(Shape({1, 512, 7, 7})));
  EXPECT_THAT(Infer("adaptive_avg_pool2d", seven, {Shape({2, 512, 10, 13})}),
              IsOkAndHolds(Shape({2, 512, 7, 7})));
  // Smaller input than output: windows repeat, as in PyTorch.
  EXPECT_THAT(Infer("adaptive_avg_pool2d", seven, {Shape({1, 512, 1, 1})}),
              IsOkAndHolds(Shape({1, 512, 7, 7})));
  // Global average pooling (ResNet).
  EXPECT_THAT(Infer("adaptive_avg_pool2d", Attrs({{"output_size", Ints{1, 1}}}),
                    {Shape({4, 2048, 7, 7})}),
              IsOkAndHolds(Shape({4, 2048, 1, 1})));
}

TEST(AdaptiveAvgPool2dTest, Flops) {
  // 7x7 -> 7x7: one add per window element and one divide per output.
  EXPECT_EQ(FlopsOf("adaptive_avg_pool2d", Attrs({{"output_size", Ints{7, 7}}}),
                    {Shape({1, 512, 7, 7})}),
            2 * 512 * 49);
  // 7 -> 3 windows have 3 rows each (they overlap): 9 adds and 1 divide each.
  EXPECT_EQ(FlopsOf("adaptive_avg_pool2d", Attrs({{"output_size", Ints{3, 3}}}),
                    {Shape({1, 1, 7, 7})}),
            9 * 9 + 9);
}

TEST(AdaptiveAvgPool2dTest, RejectsBadInput) {
  const AttrMap seven = Attrs({{"output_size", Ints{7, 7}}});
  EXPECT_THAT(Infer("adaptive_avg_pool2d", seven, {Shape({512, 7, 7})}),
              StatusIs(kInvalid,
                       "input must be rank 4 (N, C, H, W), got [512, 7, 7]"));
  EXPECT_THAT(Infer("adaptive_avg_pool2d", seven, {Shape({1, 512, 0, 7})}),
              StatusIs(kInvalid, "input [1, 512, 0, 7] has an empty"));
  EXPECT_THAT(Infer("adaptive_avg_pool2d", {}, {Shape({1, 512, 7, 7})}),
              StatusIs(kInvalid,
                       "attribute 'output_size' of adaptive_avg_pool2d is "
                       "required"));
  EXPECT_THAT(Infer("adaptive_avg_pool2d", Attrs({{"output_size", Ints{7}}}),
                    {Shape({1, 512, 7, 7})}),
              StatusIs(kInvalid,
                       "attribute 'output_size' must have 2 positive values, "
                       "got [7]"));
  EXPECT_THAT(Infer("adaptive_avg_pool2d", Attrs({{"output_size", Ints{0, 7}}}),
                    {Shape({1, 512, 7, 7})}),
              StatusIs(kInvalid, "attribute 'output_size'"));
  EXPECT_THAT(Infer("adaptive_avg_pool2d",
                    Attrs({{"output_size", Ints{7, 7}}, {"size", Ints{7, 7}}}),
                    {Shape({1, 512, 7, 7})}),
              StatusIs(kInvalid,
                       "unknown attribute 'size' for adaptive_avg_pool2d; "
                       "known: output_size"));
}

// ------------------------------------------------------------ batch_norm

// input, weight, bias, running_mean, running_var.
std::vector<Shape> BatchNormOperands(const Shape& input, int64_t channels) {
  return {input, Shape({channels}), Shape({channels}), Shape({channels}),
          Shape({channels})};
}

TEST(BatchNormTest, KeepsShapeAndDtype) {
  // ResNet's BatchNorm2d after the stem, and BatchNorm1d on [N, C] and
  // [N, C, L], as PyTorch takes them.
  EXPECT_THAT(Infer("batch_norm", {}, BatchNormOperands(Shape({8, 64, 112, 112}), 64)),
              IsOkAndHolds(Shape({8, 64, 112, 112})));
  EXPECT_THAT(Infer("batch_norm", {}, BatchNormOperands(Shape({4, 10}), 10)),
              IsOkAndHolds(Shape({4, 10})));
  EXPECT_THAT(Infer("batch_norm", Attrs({{"epsilon", 1e-3}}),
                    BatchNormOperands(Shape({2, 3, 5}), 3)),
              IsOkAndHolds(Shape({2, 3, 5})));
  // An empty batch, as in PyTorch's eval mode.
  EXPECT_THAT(Infer("batch_norm", {}, BatchNormOperands(Shape({0, 3, 4, 4}), 3)),
              IsOkAndHolds(Shape({0, 3, 4, 4})));
  // The output takes the input's dtype.
  const TensorType half_c{Shape({3}), DType::kFloat16};
  absl::StatusOr<std::vector<TensorType>> half = op_testing::InferTypes(
      "batch_norm", {},
      {{Shape({1, 3, 2, 2}), DType::kFloat16}, half_c, half_c, half_c, half_c});
  ASSERT_TRUE(half.ok()) << half.status();
  ASSERT_EQ(half->size(), 1u);
  EXPECT_EQ((*half)[0].shape, Shape({1, 3, 2, 2}));
  EXPECT_EQ((*half)[0].dtype, DType::kFloat16);
}

TEST(BatchNormTest, Flops) {
  // 2 per element (x * scale + shift) and 5 per channel (the folding).
  EXPECT_EQ(FlopsOf("batch_norm", {}, BatchNormOperands(Shape({2, 3, 4, 4}), 3)),
            2 * 2 * 3 * 4 * 4 + 5 * 3);
  EXPECT_EQ(FlopsOf("batch_norm", {}, BatchNormOperands(Shape({1, 64, 112, 112}), 64)),
            int64_t{2} * 64 * 112 * 112 + 5 * 64);
}

TEST(BatchNormTest, RejectsBadOperands) {
  EXPECT_THAT(Infer("batch_norm", {}, BatchNormOperands(Shape({3}), 3)),
              StatusIs(kInvalid,
                       "input must have rank >= 2 (N, C, ...) with channels in "
                       "dim 1, got [3]"));
  std::vector<Shape> ops = BatchNormOperands(Shape({2, 3, 4, 4}), 3);
  ops[1] = Shape({4});
  EXPECT_THAT(Infer("batch_norm", {}, ops),
              StatusIs(kInvalid,
                       "weight must be [3] (one value per channel of input "
                       "[2, 3, 4, 4], dim 1), got [4]"));
  ops = BatchNormOperands(Shape({2, 3, 4, 4}), 3);
  ops[2] = Shape({1, 3});
  EXPECT_THAT(Infer("batch_norm", {}, ops),
              StatusIs(kInvalid, "bias must be [3]"));
  ops = BatchNormOperands(Shape({2, 3, 4, 4}), 3);
  ops[3] = Shape({2});
  EXPECT_THAT(Infer("batch_norm", {}, ops),
              StatusIs(kInvalid, "running_mean must be [3]"));
  ops = BatchNormOperands(Shape({2, 3, 4, 4}), 3);
  ops[4] = Shape();
  EXPECT_THAT(Infer("batch_norm", {}, ops),
              StatusIs(kInvalid, "running_var must be [3] (one value per "
                                 "channel of input [2, 3, 4, 4], dim 1), got []"));
  // Channels are dim 1, not the last dim: [N, H, W, C] is caught.
  EXPECT_THAT(Infer("batch_norm", {}, BatchNormOperands(Shape({1, 4, 4, 3}), 3)),
              StatusIs(kInvalid, "weight must be [4]"));
  EXPECT_THAT(Infer("batch_norm", {}, {Shape({2, 3}), Shape({3}), Shape({3})}),
              StatusIs(kInvalid,
                       "batch_norm takes 5 operands (input, weight, bias, "
                       "running_mean, running_var), got 3"));
  absl::StatusOr<std::vector<TensorType>> mixed = op_testing::InferTypes(
      "batch_norm", {},
      {{Shape({1, 3}), DType::kFloat16}, {Shape({3}), DType::kFloat32},
       {Shape({3}), DType::kFloat16}, {Shape({3}), DType::kFloat16},
       {Shape({3}), DType::kFloat16}});
  EXPECT_THAT(mixed, StatusIs(kInvalid,
                              "weight is float32 but input is float16; "
                              "operands must share one dtype"));
  const TensorType i64{Shape({3}), DType::kInt64};
  EXPECT_THAT(op_testing::InferTypes("batch_norm", {},
                                     {{Shape({1, 3}), DType::kInt64}, i64, i64,
                                      i64, i64}),
              StatusIs(kInvalid, "input is int64; batch_norm takes float32"));
}

TEST(BatchNormTest, RejectsBadEpsilon) {
  const std::vector<Shape> ops = BatchNormOperands(Shape({1, 3, 2, 2}), 3);
  EXPECT_THAT(Infer("batch_norm", Attrs({{"epsilon", 0.0}}), ops),
              StatusIs(kInvalid,
                       "attribute 'epsilon' must be > 0 and finite, got 0"));
  EXPECT_THAT(Infer("batch_norm", Attrs({{"epsilon", -1e-5}}), ops),
              StatusIs(kInvalid, "attribute 'epsilon' must be > 0 and finite"));
  EXPECT_THAT(Infer("batch_norm",
                    Attrs({{"epsilon", std::numeric_limits<double>::infinity()}}),
                    ops),
              StatusIs(kInvalid, "attribute 'epsilon' must be > 0 and finite"));
  EXPECT_THAT(Infer("batch_norm",
                    Attrs({{"epsilon", std::numeric_limits<double>::quiet_NaN()}}),
                    ops),
              StatusIs(kInvalid, "attribute 'epsilon' must be > 0 and finite"));
  EXPECT_THAT(Infer("batch_norm", Attrs({{"epsilon", std::string("1e-5")}}), ops),
              StatusIs(kInvalid,
                       "attribute 'epsilon' of batch_norm must be float"));
  EXPECT_THAT(Infer("batch_norm", Attrs({{"momentum", 0.1}}), ops),
              StatusIs(kInvalid,
                       "unknown attribute 'momentum' for batch_norm; known: "
                       "epsilon"));
  // An int is a valid float, as everywhere.
  EXPECT_THAT(Infer("batch_norm", Attrs({{"epsilon", int64_t{1}}}), ops),
              IsOkAndHolds(Shape({1, 3, 2, 2})));
}

// ------------------------------------------------------------------ dtypes

TEST(DTypeTest, FloatingOpsTakeEveryFloatingDtype) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                      DType::kFloat64}) {
    absl::StatusOr<std::vector<TensorType>> out = op_testing::InferTypes(
        "conv2d", {},
        {{Shape({1, 3, 5, 5}), dtype}, {Shape({2, 3, 3, 3}), dtype}});
    ASSERT_TRUE(out.ok()) << DTypeName(dtype) << ": " << out.status();
    EXPECT_EQ((*out)[0].dtype, dtype);
    EXPECT_EQ((*out)[0].shape, Shape({1, 2, 3, 3}));
  }
  EXPECT_THAT(op_testing::InferTypes(
                  "linear", {},
                  {{Shape({2, 4}), DType::kInt32}, {Shape({3, 4}), DType::kInt32}}),
              StatusIs(kInvalid,
                       "input is int32; linear takes float32, float16, "
                       "bfloat16, float64"));
  EXPECT_THAT(op_testing::InferTypes("conv2d", {},
                                     {{Shape({1, 3, 5, 5}), DType::kFloat32},
                                      {Shape({2, 3, 3, 3}), DType::kFloat16}}),
              StatusIs(kInvalid, "weight is float16 but input is float32"));
}

// ------------------------------------------- through ShapeInferencePass

// torchvision's VGG11 at 224x224, node by node, as a model would trace it.
TEST(ShapeInferencePassTest, Vgg11) {
  Graph g;
  const Device cpu = Device::Cpu();
  ValueId x = g.AddInput("input", Shape({1, 3, 224, 224}), cpu);
  int64_t channels = 3;
  int index = 0;
  const std::vector<int64_t> config = {64, -1, 128, -1, 256, 256, -1,
                                       512, 512, -1, 512, 512, -1};
  for (int64_t c : config) {
    const std::string layer = "features." + std::to_string(index);
    if (c < 0) {
      x = g.AddNode("max_pool2d", layer, {x},
                    Attrs({{"kernel_size", Ints{2, 2}},
                           {"stride", Ints{2, 2}}}));
      ++index;
      continue;
    }
    ValueId w = g.AddInput(layer + ".weight", Shape({c, channels, 3, 3}), cpu);
    ValueId b = g.AddInput(layer + ".bias", Shape({c}), cpu);
    x = g.AddNode("conv2d", layer, {x, w, b},
                  Attrs({{"padding", Ints{1, 1}}}));
    x = g.AddNode("relu", "features." + std::to_string(index + 1), {x}, {});
    index += 2;
    channels = c;
  }
  x = g.AddNode("adaptive_avg_pool2d", "avgpool", {x},
                Attrs({{"output_size", Ints{7, 7}}}));
  x = g.AddNode("flatten", "", {x}, Attrs({{"start_dim", int64_t{1}}}));
  const std::vector<int64_t> features = {25088, 4096, 4096, 1000};
  for (int i = 0; i < 3; ++i) {
    const std::string layer = "classifier." + std::to_string(3 * i);
    ValueId w = g.AddInput(layer + ".weight",
                           Shape({features[i + 1], features[i]}), cpu);
    ValueId b = g.AddInput(layer + ".bias", Shape({features[i + 1]}), cpu);
    x = g.AddNode("linear", layer, {x, w, b}, {});
    if (i < 2) {
      x = g.AddNode("relu", "classifier." + std::to_string(3 * i + 1), {x}, {});
      x = g.AddNode("dropout", "classifier." + std::to_string(3 * i + 2), {x},
                    Attrs({{"p", 0.5}}));
    }
  }
  x = g.AddNode("softmax", "", {x}, Attrs({{"dim", int64_t{-1}}}));
  g.AddOutput(x);

  ShapeInferencePass pass;
  absl::StatusOr<bool> changed = pass.Run(g);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);

  std::vector<Shape> pools;
  for (const Node& node : g.nodes()) {
    if (node.op == "max_pool2d") pools.push_back(*g.value(node.outputs[0]).shape);
  }
  EXPECT_THAT(pools, ::testing::ElementsAre(Shape({1, 64, 112, 112}),
                                            Shape({1, 128, 56, 56}),
                                            Shape({1, 256, 28, 28}),
                                            Shape({1, 512, 14, 14}),
                                            Shape({1, 512, 7, 7})));
  EXPECT_EQ(*g.value(x).shape, Shape({1, 1000}));
}

TEST(ShapeInferencePassTest, ErrorNamesNodeAndOperand) {
  Graph g;
  ValueId x = g.AddInput("input", Shape({1, 3, 32, 32}), Device::Cpu());
  ValueId w = g.AddInput("features.0.weight", Shape({8, 4, 3, 3}),
                         Device::Cpu());
  g.AddOutput(g.AddNode("conv2d", "features.0", {x, w}, {}));
  ShapeInferencePass pass;
  EXPECT_THAT(pass.Run(g),
              StatusIs(kInvalid,
                       "node 'features.0/conv2d' (op conv2d, layer "
                       "'features.0'): weight [8, 4, 3, 3] expects 4 input "
                       "channels per group (input has 3 channels, groups=1)"));
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
