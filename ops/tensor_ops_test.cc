// relu, flatten, dropout, softmax, add and core's copy, plus registry-wide
// checks, looked up through OpRegistry::Global() and checked as the
// shape-inference pass checks a node. Expected shapes are what PyTorch
// gives for the same calls.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"
#include "core/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_test_util.h"

namespace switchyard {
namespace op_testing {
namespace {

// -------------------------------------------------------------- registry

TEST(OpRegistryTest, EveryOpIsRegistered) {
  EXPECT_THAT(OpRegistry::Global().Names(),
              ::testing::IsSupersetOf({"adaptive_avg_pool2d", "add", "conv2d",
                                       "copy", "dropout", "flatten", "linear",
                                       "batch_norm",
                                       "max_pool2d", "relu", "softmax"}));
}

TEST(OpRegistryTest, OperandNames) {
  absl::StatusOr<const OpDef*> conv = OpRegistry::Global().Find("conv2d");
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ((*conv)->name(), "conv2d");
  EXPECT_THAT((*conv)->operand_names(),
              ::testing::ElementsAre("input", "weight", "bias"));
  EXPECT_EQ((*conv)->min_operands(), 2);
  absl::StatusOr<const OpDef*> add = OpRegistry::Global().Find("add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_THAT((*add)->operand_names(),
              ::testing::ElementsAre("input", "other"));
  EXPECT_EQ((*add)->min_operands(), 2);
}

TEST(OpRegistryTest, EveryOpRejectsUnknownAttributes) {
  for (const std::string& op : OpRegistry::Global().Names()) {
    // A shape no op accepts never matters: the attribute check comes first
    // or the error is about the attribute either way.
    absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
    ASSERT_TRUE(def.ok());
    std::vector<Shape> operands((*def)->operand_names().size(),
                                Shape({1, 1, 4, 4}));
    EXPECT_THAT(Infer(op, Attrs({{"bogus", int64_t{1}}}), operands),
                StatusIs(kInvalid, "unknown attribute 'bogus' for " + op))
        << op;
  }
}

// ------------------------------------------------------------------ relu

TEST(ReluTest, KeepsShape) {
  EXPECT_THAT(Infer("relu", {}, {Shape({1, 64, 224, 224})}),
              IsOkAndHolds(Shape({1, 64, 224, 224})));
  EXPECT_THAT(Infer("relu", {}, {Shape()}), IsOkAndHolds(Shape()));
  EXPECT_EQ(FlopsOf("relu", {}, {Shape({2, 3})}), 6);
}

TEST(ReluTest, RejectsBadCalls) {
  EXPECT_THAT(Infer("relu", Attrs({{"inplace", true}}), {Shape({2})}),
              StatusIs(kInvalid,
                       "unknown attribute 'inplace' for relu; known: (none)"));
  EXPECT_THAT(Infer("relu", {}, {Shape({2}), Shape({2})}),
              StatusIs(kInvalid, "relu takes 1 operands (input), got 2"));
}

// --------------------------------------------------------------- flatten

TEST(FlattenTest, Defaults) {
  // torch.flatten(x, 1), as VGG's forward: [N, C, H, W] -> [N, C*H*W].
  EXPECT_THAT(Infer("flatten", {}, {Shape({1, 512, 7, 7})}),
              IsOkAndHolds(Shape({1, 25088})));
  EXPECT_THAT(Infer("flatten", {}, {Shape({2, 5})}),
              IsOkAndHolds(Shape({2, 5})));
  // As torch.flatten(x, 1) on a 1-D tensor: dim 1 is out of range.
  EXPECT_THAT(Infer("flatten", {}, {Shape({5})}),
              StatusIs(kInvalid,
                       "attribute 'start_dim' is 1, out of range [-1, 0] for "
                       "input of rank 1"));
}

TEST(FlattenTest, StartAndEndDims) {
  const Shape x({2, 3, 4, 5});
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{0}}}), {x}),
              IsOkAndHolds(Shape({120})));
  EXPECT_THAT(Infer("flatten",
                    Attrs({{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}}),
                    {x}),
              IsOkAndHolds(Shape({2, 12, 5})));
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{-3}},
                                      {"end_dim", int64_t{-2}}}),
                    {x}),
              IsOkAndHolds(Shape({2, 12, 5})));
  EXPECT_THAT(Infer("flatten",
                    Attrs({{"start_dim", int64_t{2}}, {"end_dim", int64_t{2}}}),
                    {x}),
              IsOkAndHolds(x));
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{-1}}}), {x}),
              IsOkAndHolds(x));
  EXPECT_THAT(Infer("flatten", {}, {Shape({2, 0, 3})}),
              IsOkAndHolds(Shape({2, 0})));
}

TEST(FlattenTest, RankZeroGivesOneElement) {
  // torch.flatten(torch.tensor(3.0)) has shape [1]; dims 0 and -1 are valid.
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{0}}}), {Shape()}),
              IsOkAndHolds(Shape({1})));
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{-1}}}), {Shape()}),
              IsOkAndHolds(Shape({1})));
  EXPECT_THAT(Infer("flatten", {}, {Shape()}),
              StatusIs(kInvalid,
                       "attribute 'start_dim' is 1, out of range [-1, 0] for "
                       "input of rank 0"));
}

TEST(FlattenTest, RejectsBadDims) {
  const Shape x({2, 3, 4, 5});
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{4}}}), {x}),
              StatusIs(kInvalid,
                       "attribute 'start_dim' is 4, out of range [-4, 3] for "
                       "input of rank 4"));
  EXPECT_THAT(Infer("flatten", Attrs({{"end_dim", int64_t{-5}}}), {x}),
              StatusIs(kInvalid,
                       "attribute 'end_dim' is -5, out of range [-4, 3] for "
                       "input of rank 4"));
  EXPECT_THAT(Infer("flatten",
                    Attrs({{"start_dim", int64_t{2}}, {"end_dim", int64_t{1}}}),
                    {x}),
              StatusIs(kInvalid,
                       "attribute 'start_dim' (2, dim 2) must not come after "
                       "attribute 'end_dim' (1, dim 1)"));
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", int64_t{-1}},
                                      {"end_dim", int64_t{0}}}),
                    {x}),
              StatusIs(kInvalid, "(-1, dim 3) must not come after"));
  EXPECT_THAT(Infer("flatten", Attrs({{"start_dim", 1.0}}), {x}),
              StatusIs(kInvalid,
                       "attribute 'start_dim' of flatten must be int, got "
                       "float 1"));
  EXPECT_THAT(Infer("flatten", Attrs({{"dim", int64_t{1}}}), {x}),
              StatusIs(kInvalid,
                       "unknown attribute 'dim' for flatten; known: "
                       "start_dim, end_dim"));
}

// --------------------------------------------------------------- dropout

TEST(DropoutTest, IdentityShape) {
  EXPECT_THAT(Infer("dropout", {}, {Shape({1, 4096})}),
              IsOkAndHolds(Shape({1, 4096})));
  EXPECT_THAT(Infer("dropout", Attrs({{"p", 0.0}}), {Shape({3})}),
              IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Infer("dropout", Attrs({{"p", 1.0}}), {Shape({3})}),
              IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Infer("dropout", Attrs({{"p", int64_t{0}}}), {Shape({3})}),
              IsOkAndHolds(Shape({3})));  // an int is accepted as a float
  EXPECT_EQ(FlopsOf("dropout", {}, {Shape({3})}), 0);
}

TEST(DropoutTest, RejectsBadProbability) {
  EXPECT_THAT(Infer("dropout", Attrs({{"p", 1.5}}), {Shape({3})}),
              StatusIs(kInvalid,
                       "attribute 'p' must be a probability in [0, 1], got "
                       "1.5"));
  EXPECT_THAT(Infer("dropout", Attrs({{"p", -0.1}}), {Shape({3})}),
              StatusIs(kInvalid, "attribute 'p' must be a probability"));
  EXPECT_THAT(Infer("dropout",
                    Attrs({{"p", std::numeric_limits<double>::quiet_NaN()}}),
                    {Shape({3})}),
              StatusIs(kInvalid, "attribute 'p' must be a probability"));
  EXPECT_THAT(Infer("dropout", Attrs({{"p", std::string("0.5")}}), {Shape({3})}),
              StatusIs(kInvalid,
                       "attribute 'p' of dropout must be float, got string"));
  EXPECT_THAT(Infer("dropout", Attrs({{"rate", 0.5}}), {Shape({3})}),
              StatusIs(kInvalid,
                       "unknown attribute 'rate' for dropout; known: p"));
}

// --------------------------------------------------------------- softmax

TEST(SoftmaxTest, KeepsShape) {
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{1}}}), {Shape({2, 1000})}),
              IsOkAndHolds(Shape({2, 1000})));
  EXPECT_THAT(
      Infer("softmax", Attrs({{"dim", int64_t{-1}}}), {Shape({2, 3, 4})}),
      IsOkAndHolds(Shape({2, 3, 4})));
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{-3}}}), {Shape({2, 3, 4})}),
              IsOkAndHolds(Shape({2, 3, 4})));
  EXPECT_EQ(FlopsOf("softmax", Attrs({{"dim", int64_t{1}}}), {Shape({2, 10})}),
            5 * 20);
}

TEST(SoftmaxTest, RejectsBadDim) {
  EXPECT_THAT(Infer("softmax", {}, {Shape({2, 3})}),
              StatusIs(kInvalid, "attribute 'dim' of softmax is required"));
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{2}}}), {Shape({2, 3})}),
              StatusIs(kInvalid,
                       "attribute 'dim' is 2, out of range [-2, 1] for input "
                       "of rank 2"));
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{-3}}}), {Shape({2, 3})}),
              StatusIs(kInvalid, "attribute 'dim' is -3, out of range"));
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{0}}}), {Shape()}),
              StatusIs(kInvalid, "input must have rank >= 1, got []"));
  EXPECT_THAT(Infer("softmax", Attrs({{"dim", int64_t{0}}, {"axis", int64_t{0}}}),
                    {Shape({2})}),
              StatusIs(kInvalid,
                       "unknown attribute 'axis' for softmax; known: dim"));
}

// ------------------------------------------------------------------- add

TEST(AddTest, EqualShapes) {
  EXPECT_THAT(Infer("add", {}, {Shape({1, 64, 56, 56}), Shape({1, 64, 56, 56})}),
              IsOkAndHolds(Shape({1, 64, 56, 56})));
  EXPECT_THAT(Infer("add", {}, {Shape(), Shape()}), IsOkAndHolds(Shape()));
  EXPECT_EQ(FlopsOf("add", {}, {Shape({2, 3}), Shape({2, 3})}), 6);
}

TEST(AddTest, RejectsShapesThatDoNotBroadcast) {
  // Broadcasting itself: ops/elementwise_ops_test.cc.
  EXPECT_THAT(Infer("add", {}, {Shape({2, 3}), Shape({2, 1})}),
              IsOkAndHolds(Shape({2, 3})));
  EXPECT_THAT(Infer("add", {}, {Shape({2, 3}), Shape({3, 3})}),
              StatusIs(kInvalid, "input [2, 3] and other [3, 3] do not broadcast"));
  EXPECT_THAT(Infer("add", {}, {Shape({2, 3})}),
              StatusIs(kInvalid, "add takes 2 operands (input, other), got 1"));
  EXPECT_THAT(Infer("add", Attrs({{"alpha", 2.0}}), {Shape({2}), Shape({2})}),
              StatusIs(kInvalid, "unknown attribute 'alpha' for add"));
}

// ---------------------------------------------------------------- dtypes

TEST(DTypeTest, ElementwiseAndShapeOpsTakeTheirDtypes) {
  // relu and add take integers too (as torch.relu and torch.add).
  absl::StatusOr<std::vector<TensorType>> relu =
      op_testing::InferTypes("relu", {}, {{Shape({2, 3}), DType::kInt64}});
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ((*relu)[0].dtype, DType::kInt64);
  absl::StatusOr<std::vector<TensorType>> add = op_testing::InferTypes(
      "add", {}, {{Shape({2}), DType::kUInt8}, {Shape({2}), DType::kUInt8}});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)[0].dtype, DType::kUInt8);
  // flatten only reshapes: any dtype, bool included.
  absl::StatusOr<std::vector<TensorType>> flat =
      op_testing::InferTypes("flatten", {}, {{Shape({2, 3, 4}), DType::kBool}});
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ((*flat)[0].dtype, DType::kBool);
  EXPECT_EQ((*flat)[0].shape, Shape({2, 12}));

  EXPECT_THAT(op_testing::InferTypes("relu", {}, {{Shape({2}), DType::kBool}}),
              StatusIs(kInvalid, "input is bool; relu takes float32"));
  EXPECT_THAT(
      op_testing::InferTypes("softmax", Attrs({{"dim", int64_t{0}}}),
                             {{Shape({2}), DType::kInt32}}),
      StatusIs(kInvalid, "input is int32; softmax takes float32, float16"));
  EXPECT_THAT(
      op_testing::InferTypes(
          "add", {}, {{Shape({2}), DType::kFloat32}, {Shape({2}), DType::kInt32}}),
      StatusIs(kInvalid,
               "other is int32 but input is float32; operands must share one "
               "dtype (cast one of them)"));
}

// ------------------------------------------------------------------ copy

TEST(CopyTest, KeepsShape) {
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("cuda:1")}}),
                    {Shape({1, 3, 224, 224})}),
              IsOkAndHolds(Shape({1, 3, 224, 224})));
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("cpu")}}),
                    {Shape({4})}),
              IsOkAndHolds(Shape({4})));
  // Any well-formed type name: plugins bring their own.
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("my_npu:0")}}),
                    {Shape({4})}),
              IsOkAndHolds(Shape({4})));
  EXPECT_EQ(FlopsOf("copy", Attrs({{"device", std::string("cpu:0")}}),
                    {Shape({4})}),
            0);
}

TEST(CopyTest, RejectsBadDevice) {
  EXPECT_THAT(Infer("copy", {}, {Shape({4})}),
              StatusIs(kInvalid, "attribute 'device' of copy is required"));
  EXPECT_THAT(Infer("copy", Attrs({{"device", int64_t{0}}}), {Shape({4})}),
              StatusIs(kInvalid,
                       "attribute 'device' of copy must be string"));
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("cuda:01")}}),
                    {Shape({4})}),
              StatusIs(kInvalid, "attribute 'device': "));
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("CUDA")}}),
                    {Shape({4})}),
              StatusIs(kInvalid, "attribute 'device': "));
  EXPECT_THAT(Infer("copy", Attrs({{"device", std::string("cpu")},
                                   {"non_blocking", true}}),
                    {Shape({4})}),
              StatusIs(kInvalid,
                       "unknown attribute 'non_blocking' for copy; known: "
                       "device"));
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
