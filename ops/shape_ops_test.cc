// The shape ops' definitions (reshape, transpose, concat, split, slice,
// gather, pad, expand, where), their attribute structs and
// ops/shape_geometry.h, looked up through OpRegistry::Global() and checked
// as the shape-inference pass checks a node. Expected shapes are numpy's
// (and ONNX's node tests') for the same calls.

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
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace op_testing {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TensorType T(Shape shape, DType dtype = DType::kFloat32) {
  return {std::move(shape), dtype};
}

// ---------------------------------------------------------------- reshape

TEST(ReshapeOpTest, Shapes) {
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{4, 6}}}),
                    {Shape({2, 3, 4})}),
              IsOkAndHolds(Shape({4, 6})));
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{}}}), {Shape({1, 1})}),
              IsOkAndHolds(Shape({})));
  // ONNX test_reshape_allowzero_reordered: [0, 3, 4] -> [3, 4, 0].
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{3, 4, 0}}}),
                    {Shape({0, 3, 4})}),
              IsOkAndHolds(Shape({3, 4, 0})));
}

TEST(ReshapeOpTest, AnyDType) {
  for (DType dtype : AllDTypes()) {
    absl::StatusOr<std::vector<TensorType>> out = InferTypes(
        "reshape", Attrs({{"shape", Ints{6}}}), {T(Shape({2, 3}), dtype)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype, dtype);
  }
}

TEST(ReshapeOpTest, Errors) {
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{5}}}), {Shape({2, 3})}),
              StatusIs(kInvalid, "must hold the 6 elements of input [2, 3]"));
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{-1, 3}}}),
                    {Shape({2, 3})}),
              StatusIs(kInvalid, "resolve -1 and 0"));
  EXPECT_THAT(Infer("reshape", Attrs({{"shape", Ints{0, kMax, kMax}}}),
                    {Shape({0})}),
              StatusIs(kInvalid, "attribute 'shape'"));
  EXPECT_THAT(Infer("reshape", {}, {Shape({2})}),
              StatusIs(kInvalid, "'shape' of reshape is required"));
}

// -------------------------------------------------------------- transpose

TEST(TransposeOpTest, Shapes) {
  const Shape x({2, 3, 4});
  EXPECT_THAT(Infer("transpose", Attrs({{"perm", Ints{2, 0, 1}}}), {x}),
              IsOkAndHolds(Shape({4, 2, 3})));
  EXPECT_THAT(Infer("transpose", Attrs({{"perm", Ints{0, 1, 2}}}), {x}),
              IsOkAndHolds(x));
  EXPECT_THAT(Infer("transpose", Attrs({{"perm", Ints{}}}), {Shape({})}),
              IsOkAndHolds(Shape({})));
}

TEST(TransposeOpTest, Errors) {
  const Shape x({2, 3, 4});
  for (const Ints& perm :
       {Ints{0, 1}, Ints{0, 1, 1}, Ints{0, 1, 3}, Ints{-1, 0, 1}}) {
    EXPECT_THAT(Infer("transpose", Attrs({{"perm", perm}}), {x}),
                StatusIs(kInvalid, "must be a permutation of 0..2"));
  }
}

// ----------------------------------------------------------------- concat

TEST(ConcatOpTest, Shapes) {
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{1}}}),
                    {Shape({2, 3, 4}), Shape({2, 1, 4}), Shape({2, 0, 4})}),
              IsOkAndHolds(Shape({2, 4, 4})));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{-1}}}),
                    {Shape({2, 3}), Shape({2, 5})}),
              IsOkAndHolds(Shape({2, 8})));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}), {Shape({7})}),
              IsOkAndHolds(Shape({7})));
}

TEST(ConcatOpTest, Errors) {
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}),
                    {Shape({2, 3}), Shape({2, 4})}),
              StatusIs(kInvalid, "operand 1 [2, 4] must have the shape of "
                                 "operand 0 [2, 3] except along axis 0"));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}),
                    {Shape({2, 3}), Shape({6})}),
              StatusIs(kInvalid, "except along axis"));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{2}}}), {Shape({2, 3})}),
              StatusIs(kInvalid, "out of range [-2, 1]"));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}), {Shape({})}),
              StatusIs(kInvalid, "rank >= 1"));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}), {}),
              StatusIs(kInvalid, "concat takes 1 or more operands"));
  EXPECT_THAT(InferTypes("concat", Attrs({{"axis", int64_t{0}}}),
                         {T(Shape({2})), T(Shape({2}), DType::kInt64)}),
              StatusIs(kInvalid, "share one dtype"));
  EXPECT_THAT(Infer("concat", Attrs({{"axis", int64_t{0}}}),
                    {Shape({kMax / 2 + 1}), Shape({kMax / 2 + 1})}),
              StatusIs(kInvalid, "overflows"));
}

// ------------------------------------------------------------------ split

TEST(SplitOpTest, OneOutputPerSize) {
  absl::StatusOr<std::vector<TensorType>> out =
      InferTypes("split", Attrs({{"axis", int64_t{-1}}, {"sizes", Ints{2, 0, 4}}}),
                 {T(Shape({3, 6}), DType::kInt8)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0], T(Shape({3, 2}), DType::kInt8));
  EXPECT_EQ((*out)[1], T(Shape({3, 0}), DType::kInt8));
  EXPECT_EQ((*out)[2], T(Shape({3, 4}), DType::kInt8));
  // ONNX test_split_zero_size_splits: [0] into three empty pieces.
  out = InferTypes("split", Attrs({{"sizes", Ints{0, 0, 0}}}), {T(Shape({0}))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), 3u);
}

TEST(SplitOpTest, Errors) {
  EXPECT_THAT(InferTypes("split", Attrs({{"sizes", Ints{2, 2}}}),
                         {T(Shape({6}))}),
              StatusIs(kInvalid, "must sum to the input's length along axis "
                                 "0: 6"));
  EXPECT_THAT(InferTypes("split", Attrs({{"sizes", Ints{-1, 7}}}),
                         {T(Shape({6}))}),
              StatusIs(kInvalid, "entries >= 0"));
  EXPECT_THAT(InferTypes("split", Attrs({{"sizes", Ints{}}}), {T(Shape({6}))}),
              StatusIs(kInvalid, "at least one entry"));
  EXPECT_THAT(InferTypes("split", Attrs({{"sizes", Ints{kMax, kMax, 2}}}),
                         {T(Shape({0}))}),
              StatusIs(kInvalid, "must sum"));
  EXPECT_THAT(InferTypes("split", Attrs({{"sizes", Ints{1}}}), {T(Shape({}))}),
              StatusIs(kInvalid, "rank >= 1"));
}

// ------------------------------------------------------------------ slice

absl::StatusOr<Shape> Slice(const Shape& x, Ints starts, Ints ends,
                            Ints axes = {}, Ints steps = {}) {
  return Infer("slice",
               Attrs({{"starts", starts},
                      {"ends", ends},
                      {"axes", axes},
                      {"steps", steps}}),
               {x});
}

TEST(SliceOpTest, OnnxNodeTestShapes) {
  const Shape x({20, 10, 5});
  EXPECT_THAT(Slice(x, {0, 0}, {3, 10}, {0, 1}, {1, 1}),
              IsOkAndHolds(Shape({3, 10, 5})));
  EXPECT_THAT(Slice(x, {0, 0, 3}, {20, 10, 4}), IsOkAndHolds(Shape({20, 10, 1})));
  EXPECT_THAT(Slice(x, {1}, {1000}, {1}, {1}), IsOkAndHolds(Shape({20, 9, 5})));
  EXPECT_THAT(Slice(x, {0}, {-1}, {1}, {1}), IsOkAndHolds(Shape({20, 9, 5})));
  EXPECT_THAT(Slice(x, {20, 10, 4}, {0, 0, 1}, {0, 1, 2}, {-1, -3, -2}),
              IsOkAndHolds(Shape({19, 3, 2})));
  EXPECT_THAT(Slice(x, {0, 0, 3}, {20, 10, 4}, {0, -2, -1}),
              IsOkAndHolds(Shape({20, 10, 1})));
  EXPECT_THAT(Slice(x, {1000}, {1000}, {1}, {1}), IsOkAndHolds(Shape({20, 0, 5})));
}

TEST(SliceOpTest, ExtremeEndsAndSteps) {
  const Shape x({5});
  EXPECT_THAT(Slice(x, {-1}, {kMin}, {0}, {-1}), IsOkAndHolds(Shape({5})));
  EXPECT_THAT(Slice(x, {kMin}, {kMax}, {0}, {2}), IsOkAndHolds(Shape({3})));
  EXPECT_THAT(Slice(x, {kMax}, {kMin}, {0}, {kMin}), IsOkAndHolds(Shape({1})));
  EXPECT_THAT(Slice(x, {0}, {kMax}, {0}, {kMax}), IsOkAndHolds(Shape({1})));
  EXPECT_THAT(Slice(x, {2}, {2}, {0}, {1}), IsOkAndHolds(Shape({0})));
  EXPECT_THAT(Slice(Shape({0}), {0}, {kMax}, {0}, {-1}), IsOkAndHolds(Shape({0})));
}

TEST(SliceOpTest, Errors) {
  const Shape x({4, 4});
  EXPECT_THAT(Slice(x, {0}, {1, 2}), StatusIs(kInvalid, "same length"));
  EXPECT_THAT(Slice(x, {0}, {1}, {0}, {0}), StatusIs(kInvalid, "has a 0"));
  EXPECT_THAT(Slice(x, {0}, {1}, {2}), StatusIs(kInvalid, "out of range [-2, 1]"));
  EXPECT_THAT(Slice(x, {0, 0}, {1, 1}, {1, -1}), StatusIs(kInvalid, "twice"));
}

TEST(SliceGeometryTest, StartsCountsAndSteps) {
  SliceAttrs a;
  a.starts = {-1, 1};
  a.ends = {kMin, -1};
  a.axes = {0, 2};
  a.steps = {-2, 3};
  absl::StatusOr<std::vector<SliceDim>> dims =
      SliceGeometry(a, Shape({7, 3, 8}));
  ASSERT_TRUE(dims.ok()) << dims.status();
  // Dim 0: 6, 4, 2, 0. Dim 1 untouched. Dim 2: 1, 4 (7 is the end).
  EXPECT_EQ((*dims)[0].start, 6);
  EXPECT_EQ((*dims)[0].step, -2);
  EXPECT_EQ((*dims)[0].count, 4);
  EXPECT_EQ((*dims)[1].count, 3);
  EXPECT_EQ((*dims)[2].start, 1);
  EXPECT_EQ((*dims)[2].count, 2);
}

// -------------------------------------------------------------------- gather

TEST(GatherOpTest, Shapes) {
  const TensorType data = T(Shape({5, 4, 3}), DType::kFloat16);
  for (DType index : {DType::kInt64, DType::kInt32}) {
    absl::StatusOr<std::vector<TensorType>> out =
        InferTypes("gather", Attrs({{"axis", int64_t{1}}}),
                   {data, T(Shape({2, 6}), index)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], T(Shape({5, 2, 6, 3}), DType::kFloat16));
  }
  // Rank-0 indices drop the axis.
  EXPECT_THAT(InferTypes("gather", Attrs({{"axis", int64_t{-1}}}),
                         {data, T(Shape({}), DType::kInt64)}),
              IsOkAndHolds(std::vector<TensorType>{T(Shape({5, 4}), DType::kFloat16)}));
  // No index at all: fine even along an empty dim.
  EXPECT_THAT(InferTypes("gather", {},
                         {T(Shape({0, 2})), T(Shape({0}), DType::kInt32)}),
              IsOkAndHolds(std::vector<TensorType>{T(Shape({0, 2}))}));
}

TEST(GatherOpTest, Errors) {
  EXPECT_THAT(InferTypes("gather", {}, {T(Shape({4})), T(Shape({2}))}),
              StatusIs(kInvalid, "indices is float32; gather takes int64 or "
                                 "int32 indices"));
  EXPECT_THAT(InferTypes("gather", Attrs({{"axis", int64_t{1}}}),
                         {T(Shape({4})), T(Shape({2}), DType::kInt64)}),
              StatusIs(kInvalid, "out of range [-1, 0]"));
  EXPECT_THAT(InferTypes("gather", {},
                         {T(Shape({})), T(Shape({}), DType::kInt64)}),
              StatusIs(kInvalid, "rank >= 1"));
  EXPECT_THAT(InferTypes("gather", {},
                         {T(Shape({0, 3})), T(Shape({1}), DType::kInt64)}),
              StatusIs(kInvalid, "empty along axis 0"));
}

TEST(GatherIndexErrorTest, NamesTheIndexItsPositionAndTheBound) {
  EXPECT_THAT(GatherIndexError(7, 3, Shape({2, 2}), 5, 1),
              StatusIs(kInvalid, "gather: index 7 at indices[1, 1] is out of "
                                 "range for data's axis 1 of length 5 "
                                 "(valid: -5 to 4)"));
  EXPECT_THAT(GatherIndexError(-9, 0, Shape({}), 4, 0),
              StatusIs(kInvalid, "index -9 at indices[] "));
}

// ---------------------------------------------------------------------- pad

TEST(PadOpTest, Shapes) {
  // ONNX test_constant_pad: pads [0, 0, 1, 3, 0, 0, 2, 4].
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{0, 0, 1, 3, 0, 0, 2, 4}},
                                  {"value", 1.2}}),
                    {Shape({1, 3, 4, 5})}),
              IsOkAndHolds(Shape({1, 3, 7, 12})));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{-1, 2, 0, -3}},
                                  {"mode", std::string("edge")}}),
                    {Shape({3, 4})}),
              IsOkAndHolds(Shape({2, 3})));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{}}}), {Shape({})}),
              IsOkAndHolds(Shape({})));
}

TEST(PadOpTest, Errors) {
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{1, 1}}}), {Shape({2, 2})}),
              StatusIs(kInvalid, "2 * rank = 4 values"));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{1, 1, 1}}}), {Shape({2, 2})}),
              StatusIs(kInvalid, "2 values per dim"));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{-2, -1}}}), {Shape({2})}),
              StatusIs(kInvalid, "removes more than dim 0"));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{1, 0}},
                                  {"mode", std::string("wrap")}}),
                    {Shape({2})}),
              StatusIs(kInvalid, "constant, reflect or edge, got 'wrap'"));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{1, 0}},
                                  {"mode", std::string("reflect")}}),
                    {Shape({0})}),
              StatusIs(kInvalid, "it is empty"));
  EXPECT_THAT(Infer("pad", Attrs({{"pads", Ints{kMax, 0}}}), {Shape({2})}),
              StatusIs(kInvalid, "within"));
}

TEST(PadGeometryTest, SourceIndexPerMode) {
  // numpy.pad(arange(4), (3, 3), mode) gives these indices.
  const Ints reflect = {3, 2, 1, 0, 1, 2, 3, 2, 1, 0};
  const Ints edge = {0, 0, 0, 0, 1, 2, 3, 3, 3, 3};
  const Ints constant = {-1, -1, -1, 0, 1, 2, 3, -1, -1, -1};
  for (int64_t o = 0; o < 10; ++o) {
    EXPECT_EQ(PadSourceIndex(PadMode::kReflect, o, 3, 4), reflect[o]) << o;
    EXPECT_EQ(PadSourceIndex(PadMode::kEdge, o, 3, 4), edge[o]) << o;
    EXPECT_EQ(PadSourceIndex(PadMode::kConstant, o, 3, 4), constant[o]) << o;
  }
  // Longer than the dim: numpy mirrors again ([0 1 2] -> 2 1 0 1 2 1 0 1).
  const Ints twice = {0, 1, 2, 1, 0, 1, 2, 1, 0};
  for (int64_t o = 0; o < 9; ++o) {
    EXPECT_EQ(PadSourceIndex(PadMode::kReflect, o, 4, 3), twice[o]) << o;
  }
  EXPECT_EQ(PadSourceIndex(PadMode::kReflect, 0, 5, 1), 0);
  // A crop (negative begin) shifts the window.
  EXPECT_EQ(PadSourceIndex(PadMode::kConstant, 0, -2, 4), 2);
}

TEST(PadAttrsTest, RoundTripsModeAndValue) {
  PadAttrs a;
  a.pads = {1, 2};
  a.mode = PadMode::kReflect;
  a.value = -3.5;
  absl::StatusOr<PadAttrs> back = PadAttrs::FromAttrMap(a.ToAttrMap());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pads, a.pads);
  EXPECT_EQ(back->mode, PadMode::kReflect);
  EXPECT_EQ(back->value, -3.5);
}

// ------------------------------------------------------------------- expand

TEST(ExpandOpTest, Shapes) {
  // ONNX test_expand_dim_changed and test_expand_dim_unchanged.
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{2, 1, 6}}}), {Shape({3, 1})}),
              IsOkAndHolds(Shape({2, 3, 6})));
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{3, 4}}}), {Shape({3, 1})}),
              IsOkAndHolds(Shape({3, 4})));
  // A shorter or all-ones shape keeps the input's dims.
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{1}}}), {Shape({2, 3})}),
              IsOkAndHolds(Shape({2, 3})));
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{4, 0}}}), {Shape({1})}),
              IsOkAndHolds(Shape({4, 0})));
}

TEST(ExpandOpTest, Errors) {
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{4}}}), {Shape({3})}),
              StatusIs(kInvalid, "do not broadcast"));
  EXPECT_THAT(Infer("expand", Attrs({{"shape", Ints{-1}}}), {Shape({3})}),
              StatusIs(kInvalid, "entries >= 0"));
}

// -------------------------------------------------------------------- where

TEST(WhereOpTest, BroadcastsAllThree) {
  for (DType dtype : AllDTypes()) {
    EXPECT_THAT(InferTypes("where", {},
                           {T(Shape({2, 1, 4}), DType::kBool),
                            T(Shape({3, 1}), dtype), T(Shape({}), dtype)}),
                IsOkAndHolds(std::vector<TensorType>{T(Shape({2, 3, 4}), dtype)}));
  }
}

TEST(WhereOpTest, Errors) {
  EXPECT_THAT(InferTypes("where", {},
                         {T(Shape({2})), T(Shape({2})), T(Shape({2}))}),
              StatusIs(kInvalid, "condition is float32; where takes a bool"));
  EXPECT_THAT(InferTypes("where", {},
                         {T(Shape({2}), DType::kBool), T(Shape({2})),
                          T(Shape({2}), DType::kInt32)}),
              StatusIs(kInvalid, "x is float32 but y is int32"));
  EXPECT_THAT(InferTypes("where", {},
                         {T(Shape({2}), DType::kBool), T(Shape({3})),
                          T(Shape({2}))}),
              StatusIs(kInvalid, "do not broadcast"));
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
