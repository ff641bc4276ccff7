// The elementwise family's definitions: broadcasting (ops/broadcast.h) and
// the ops that use it (add, sub, mul, div, pow), the unary ops with their
// attributes (ops/elementwise_attrs.h) and cast. Expected shapes are numpy's
// for the same operands.

#include <cmath>
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
#include "ops/broadcast.h"
#include "ops/elementwise_attrs.h"
#include "ops/op_test_util.h"

namespace switchyard {
namespace op_testing {
namespace {

using ::testing::ElementsAre;

constexpr double kInf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------ broadcasting

TEST(BroadcastShapesTest, NumpyRules) {
  auto b = [](Shape x, Shape y) { return BroadcastShapes({x, y}); };
  EXPECT_THAT(b(Shape({2, 3}), Shape({2, 3})), IsOkAndHolds(Shape({2, 3})));
  EXPECT_THAT(b(Shape({2, 3}), Shape()), IsOkAndHolds(Shape({2, 3})));  // scalar
  EXPECT_THAT(b(Shape(), Shape({4})), IsOkAndHolds(Shape({4})));
  EXPECT_THAT(b(Shape({3, 4, 5}), Shape({5})), IsOkAndHolds(Shape({3, 4, 5})));
  EXPECT_THAT(b(Shape({3, 4, 5}), Shape({4, 1})),  // column
              IsOkAndHolds(Shape({3, 4, 5})));
  EXPECT_THAT(b(Shape({2, 1, 4}), Shape({3, 1})),  // both sides grow
              IsOkAndHolds(Shape({2, 3, 4})));
  EXPECT_THAT(b(Shape({1}), Shape({2, 1, 1})), IsOkAndHolds(Shape({2, 1, 1})));
  EXPECT_THAT(b(Shape({0, 3}), Shape({1, 3})), IsOkAndHolds(Shape({0, 3})));
  EXPECT_THAT(b(Shape({0}), Shape({1})), IsOkAndHolds(Shape({0})));
  EXPECT_THAT(b(Shape(), Shape()), IsOkAndHolds(Shape()));
  // Three operands (where): each dimension from whichever is not 1.
  EXPECT_THAT(BroadcastShapes({Shape({1, 3}), Shape({2, 1}), Shape({1})}),
              IsOkAndHolds(Shape({2, 3})));
}

TEST(BroadcastShapesTest, ErrorsNameBothOperandsAndTheDimension) {
  const std::vector<std::string> names = {"input", "other"};
  EXPECT_THAT(BroadcastShapes({Shape({2, 3}), Shape({4})}, names),
              StatusIs(kInvalid,
                       "input [2, 3] and other [4] do not broadcast: output "
                       "dimension 1 is 3 and 4"));
  EXPECT_THAT(BroadcastShapes({Shape({0}), Shape({2})}, names),
              StatusIs(kInvalid, "dimension 0 is 0 and 2"));
  // Without names: by position; the message names the operand that set
  // the dimension, not always operand 0.
  EXPECT_THAT(
      BroadcastShapes({Shape({1, 3}), Shape({2, 1}), Shape({5, 3})}),
      StatusIs(kInvalid, "operand 1 [2, 1] and operand 2 [5, 3] do not "
                         "broadcast: output dimension 0 is 2 and 5"));
}

TEST(BroadcastShapesTest, CheckBroadcastsToIsOneDirectional) {
  EXPECT_TRUE(CheckBroadcastsTo(Shape({3, 1}), Shape({2, 3, 4}), "c").ok());
  EXPECT_TRUE(CheckBroadcastsTo(Shape(), Shape({2}), "c").ok());
  EXPECT_THAT(CheckBroadcastsTo(Shape({2, 3, 4}), Shape({3, 4}), "c"),
              StatusIs(kInvalid, "c [2, 3, 4] has more dimensions than [3, 4]"));
  EXPECT_THAT(CheckBroadcastsTo(Shape({3}), Shape({2, 4}), "bias"),
              StatusIs(kInvalid, "bias [3] does not broadcast to [2, 4]: its "
                                 "dimension 0 is 3 where the target has 4"));
}

TEST(BroadcastStridesTest, ZeroWhereBroadcast) {
  EXPECT_THAT(BroadcastStrides(Shape({3, 1}), Shape({2, 3, 4})),
              ElementsAre(0, 1, 0));
  EXPECT_THAT(BroadcastStrides(Shape({2, 3, 4}), Shape({2, 3, 4})),
              ElementsAre(12, 4, 1));
  EXPECT_THAT(BroadcastStrides(Shape(), Shape({5})), ElementsAre(0));
}

TEST(BroadcastLayoutTest, MergesDimensionsEveryOperandAllows) {
  // Same shape: one run.
  BroadcastLayout same =
      BroadcastLayout::Make({Shape({2, 3, 4}), Shape({2, 3, 4})}, Shape({2, 3, 4}));
  EXPECT_THAT(same.dims, ElementsAre(24));
  EXPECT_TRUE(same.SameShape());
  // A row: 6 runs of 4, the row re-read each time.
  BroadcastLayout row =
      BroadcastLayout::Make({Shape({2, 3, 4}), Shape({4})}, Shape({2, 3, 4}));
  EXPECT_THAT(row.dims, ElementsAre(6, 4));
  EXPECT_THAT(row.strides[0], ElementsAre(4, 1));
  EXPECT_THAT(row.strides[1], ElementsAre(0, 1));
  EXPECT_FALSE(row.SameShape());
  // A column: runs of 4 against one value each; the column restarts with
  // each of the 2 outer rows, so that dimension stays apart.
  BroadcastLayout column =
      BroadcastLayout::Make({Shape({2, 3, 4}), Shape({3, 1})}, Shape({2, 3, 4}));
  EXPECT_THAT(column.dims, ElementsAre(2, 3, 4));
  EXPECT_THAT(column.strides[1], ElementsAre(0, 1, 0));
  // A leading broadcast merges: [5, 3, 4] against [1, 3, 4] is 5 x 12.
  BroadcastLayout lead =
      BroadcastLayout::Make({Shape({5, 3, 4}), Shape({1, 3, 4})}, Shape({5, 3, 4}));
  EXPECT_THAT(lead.dims, ElementsAre(5, 12));
  EXPECT_THAT(lead.strides[1], ElementsAre(0, 1));
  // Size-1 dimensions vanish; a scalar output is one element.
  BroadcastLayout scalar = BroadcastLayout::Make({Shape({1, 1}), Shape()}, Shape({1, 1}));
  EXPECT_THAT(scalar.dims, ElementsAre(1));
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_TRUE(scalar.SameShape());
}

// ForEachBroadcastRun against the plain index arithmetic, for every split
// point of the output (as threads split it).
TEST(BroadcastLayoutTest, RunsVisitEveryElementWithItsOffsets) {
  const Shape a({2, 1, 4, 3}), b({3, 1, 3}), out({2, 3, 4, 3});
  ASSERT_THAT(BroadcastShapes({a, b}), IsOkAndHolds(out));
  const BroadcastLayout layout = BroadcastLayout::Make({a, b}, out);
  const std::vector<int64_t> sa = BroadcastStrides(a, out);
  const std::vector<int64_t> sb = BroadcastStrides(b, out);
  const int64_t n = out.num_elements();
  std::vector<std::pair<int64_t, int64_t>> want;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, oa = 0, ob = 0;
    for (int d = out.rank() - 1; d >= 0; --d) {
      const int64_t idx = rest % out.dim(d);
      rest /= out.dim(d);
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    want.push_back({oa, ob});
  }
  for (int64_t split = 0; split <= n; split += 5) {
    std::vector<std::pair<int64_t, int64_t>> got(n, {-1, -1});
    auto visit = [&](int64_t o, const int64_t* offsets, const int64_t* strides,
                     int64_t count) {
      for (int64_t i = 0; i < count; ++i) {
        got[o + i] = {offsets[0] + i * strides[0], offsets[1] + i * strides[1]};
      }
    };
    ForEachBroadcastRun(layout, 0, split, visit);
    ForEachBroadcastRun(layout, split, n, visit);
    EXPECT_EQ(got, want) << "split at " << split;
  }
}

// ------------------------------------------------------- binary arithmetic

TEST(BinaryElementwiseTest, EveryOpBroadcasts) {
  for (const char* op : {"add", "sub", "mul", "div", "pow"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Infer(op, {}, {Shape({3, 4, 5}), Shape({5})}),
                IsOkAndHolds(Shape({3, 4, 5})));
    EXPECT_THAT(Infer(op, {}, {Shape({5}), Shape({3, 4, 5})}),
                IsOkAndHolds(Shape({3, 4, 5})));
    EXPECT_THAT(Infer(op, {}, {Shape({2, 1}), Shape({1, 3})}),
                IsOkAndHolds(Shape({2, 3})));
    EXPECT_THAT(Infer(op, {}, {Shape({2, 3}), Shape()}),
                IsOkAndHolds(Shape({2, 3})));
    EXPECT_EQ(FlopsOf(op, {}, {Shape({2, 1}), Shape({1, 3})}), 6);
    EXPECT_THAT(Infer(op, {}, {Shape({2, 3}), Shape({2})}),
                StatusIs(kInvalid, "input [2, 3] and other [2] do not broadcast"));
    EXPECT_THAT(Infer(op, {}, {Shape({2})}),
                StatusIs(kInvalid, std::string(op) +
                                       " takes 2 operands (input, other), got 1"));
  }
}

TEST(BinaryElementwiseTest, OperandsShareOneDtypeWhichTheOutputKeeps) {
  absl::StatusOr<std::vector<TensorType>> div = InferTypes(
      "div", {}, {{Shape({2, 3}), DType::kInt64}, {Shape({3}), DType::kInt64}});
  ASSERT_TRUE(div.ok()) << div.status();
  EXPECT_EQ((*div)[0].dtype, DType::kInt64);
  EXPECT_EQ((*div)[0].shape, Shape({2, 3}));
  // ONNX Pow allows another exponent dtype; here the importer casts it.
  EXPECT_THAT(InferTypes("pow", {}, {{Shape({3}), DType::kFloat32},
                                     {Shape({3}), DType::kInt64}}),
              StatusIs(kInvalid, "other is int64 but input is float32"));
  EXPECT_THAT(InferTypes("mul", {}, {{Shape({3}), DType::kBool},
                                     {Shape({3}), DType::kBool}}),
              StatusIs(kInvalid, "input is bool; mul takes float32"));
}

// ------------------------------------------------------------------- unary

TEST(UnaryElementwiseTest, KeepShapeAndDtype) {
  for (const char* op :
       {"sigmoid", "erf", "gelu", "sqrt", "exp", "tanh", "neg", "abs", "reciprocal",
        "hard_sigmoid", "hard_swish", "clip", "leaky_relu", "sin", "cos",
        "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
        "atanh"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Infer(op, {}, {Shape({2, 3, 4})}), IsOkAndHolds(Shape({2, 3, 4})));
    EXPECT_THAT(Infer(op, {}, {Shape()}), IsOkAndHolds(Shape()));
    EXPECT_THAT(Infer(op, {}, {Shape({0, 5})}), IsOkAndHolds(Shape({0, 5})));
    absl::StatusOr<std::vector<TensorType>> f64 =
        InferTypes(op, {}, {{Shape({3}), DType::kFloat64}});
    ASSERT_TRUE(f64.ok()) << f64.status();
    EXPECT_EQ((*f64)[0].dtype, DType::kFloat64);
    EXPECT_THAT(Infer(op, {}, {Shape({2}), Shape({2})}),
                StatusIs(kInvalid, std::string(op) + " takes 1 operands (input), got 2"));
  }
  EXPECT_EQ(FlopsOf("neg", {}, {Shape({2, 3})}), 6);
}

TEST(UnaryElementwiseTest, IntegerDtypesWhereOnnxHasThem) {
  EXPECT_TRUE(InferTypes("abs", {}, {{Shape({3}), DType::kUInt8}}).ok());
  EXPECT_TRUE(InferTypes("neg", {}, {{Shape({3}), DType::kInt8}}).ok());
  EXPECT_TRUE(InferTypes("clip", {}, {{Shape({3}), DType::kInt64}}).ok());
  EXPECT_THAT(InferTypes("neg", {}, {{Shape({3}), DType::kUInt8}}),
              StatusIs(kInvalid, "input is uint8; neg takes"));
  EXPECT_THAT(InferTypes("sigmoid", {}, {{Shape({3}), DType::kInt32}}),
              StatusIs(kInvalid, "input is int32; sigmoid takes float32, "
                                 "float16, bfloat16, float64"));
}

TEST(UnaryElementwiseTest, AttributesAndTheirChecks) {
  EXPECT_THAT(Infer("hard_sigmoid", Attrs({{"alpha", 0.5}, {"beta", 0.6}}),
                    {Shape({3})}),
              IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Infer("hard_sigmoid", Attrs({{"alpha", std::nan("")}}), {Shape({3})}),
              StatusIs(kInvalid, "attribute 'alpha' must be finite, got nan"));
  EXPECT_THAT(Infer("leaky_relu", Attrs({{"alpha", kInf}}), {Shape({3})}),
              StatusIs(kInvalid, "attribute 'alpha' must be finite, got inf"));
  EXPECT_THAT(Infer("clip", Attrs({{"min", -kInf}, {"max", 6.0}}), {Shape({3})}),
              IsOkAndHolds(Shape({3})));
  // min > max is allowed (max wins), as in ONNX and numpy.
  EXPECT_THAT(Infer("clip", Attrs({{"min", 2.0}, {"max", 1.0}}), {Shape({3})}),
              IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Infer("clip", Attrs({{"max", std::nan("")}}), {Shape({3})}),
              StatusIs(kInvalid, "attribute 'max' must be a number"));
  EXPECT_THAT(Infer("clip", Attrs({{"max", std::string("6")}}), {Shape({3})}),
              StatusIs(kInvalid, "attribute 'max' of clip must be float"));
  EXPECT_THAT(Infer("sigmoid", Attrs({{"alpha", 1.0}}), {Shape({3})}),
              StatusIs(kInvalid, "unknown attribute 'alpha' for sigmoid"));
}

TEST(ElementwiseAttrsTest, DefaultsAreOnnxs) {
  EXPECT_EQ(HardSigmoidAttrs().alpha, 0.2);
  EXPECT_EQ(HardSigmoidAttrs().beta, 0.5);
  EXPECT_EQ(LeakyReluAttrs().alpha, 0.01);
  EXPECT_EQ(ClipAttrs().min, -kInf);
  EXPECT_EQ(ClipAttrs().max, kInf);
  absl::StatusOr<ClipAttrs> clip = ClipAttrs::FromAttrMap(Attrs({{"min", int64_t{0}}}));
  ASSERT_TRUE(clip.ok()) << clip.status();
  EXPECT_EQ(clip->min, 0.0);  // an int is a valid float
  EXPECT_EQ(clip->max, kInf);
}

// -------------------------------------------------------------------- cast

TEST(CastTest, OutputHasTheDtypeOfTo) {
  for (DType from : AllDTypes()) {
    for (DType to : AllDTypes()) {
      absl::StatusOr<std::vector<TensorType>> out = InferTypes(
          "cast", Attrs({{"to", DTypeName(to)}}), {{Shape({2, 3}), from}});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0], (TensorType{Shape({2, 3}), to}));
    }
  }
  absl::StatusOr<std::vector<TensorType>> alias = InferTypes(
      "cast", Attrs({{"to", std::string("long")}}), {{Shape(), DType::kFloat32}});
  ASSERT_TRUE(alias.ok()) << alias.status();
  EXPECT_EQ((*alias)[0].dtype, DType::kInt64);
  EXPECT_EQ(FlopsOf("cast", Attrs({{"to", std::string("int32")}}), {Shape({4})}), 0);
}

TEST(CastTest, RejectsUnknownDtypes) {
  EXPECT_THAT(InferTypes("cast", Attrs({{"to", std::string("string")}}),
                         {{Shape({2}), DType::kFloat32}}),
              StatusIs(kInvalid, "attribute 'to' of cast: unknown dtype 'string'; "
                                 "supported: float32"));
  EXPECT_THAT(InferTypes("cast", Attrs({{"to", int64_t{1}}}),
                         {{Shape({2}), DType::kFloat32}}),
              StatusIs(kInvalid, "attribute 'to' of cast must be string"));
  absl::StatusOr<CastAttrs> round = CastAttrs::FromAttrMap(CastAttrs{DType::kBool}.ToAttrMap());
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->to, DType::kBool);
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
