// non_max_suppression's definition: shape and dtype inference, attribute
// validation, FLOPs; and what the optimized kernels share
// (ops/nms_geometry.h): box decoding, the candidate order, the IoU.

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/nms_attrs.h"
#include "ops/nms_geometry.h"
#include "ops/op_test_util.h"

namespace switchyard {
namespace op_testing {
namespace {

using ::testing::ElementsAre;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr char kOp[] = "non_max_suppression";
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<TensorType> Operands(Shape boxes, Shape scores) {
  return {{std::move(boxes), DType::kFloat32}, {std::move(scores), DType::kFloat32}};
}

TEST(NonMaxSuppressionOpTest, PaddedIndicesAndACount) {
  absl::StatusOr<std::vector<TensorType>> out = InferTypes(
      kOp, Attrs({{"max_output_boxes_per_class", int64_t{10}}}),
      Operands(Shape({2, 100, 4}), Shape({2, 3, 100})));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0], (TensorType{Shape({2 * 3 * 10, 3}), DType::kInt64}));
  EXPECT_EQ((*out)[1], (TensorType{Shape({1}), DType::kInt64}));
}

TEST(NonMaxSuppressionOpTest, RowsPerClassAreAtMostTheBoxes) {
  // ONNX models often say INT64_MAX.
  absl::StatusOr<std::vector<TensorType>> out = InferTypes(
      kOp,
      Attrs({{"max_output_boxes_per_class", std::numeric_limits<int64_t>::max()}}),
      Operands(Shape({1, 7, 4}), Shape({1, 2, 7})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, Shape({14, 3}));
}

TEST(NonMaxSuppressionOpTest, OnnxDefaultSelectsNothing) {
  absl::StatusOr<std::vector<TensorType>> out =
      InferTypes(kOp, {}, Operands(Shape({1, 5, 4}), Shape({1, 1, 5})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, Shape({0, 3}));
  NonMaxSuppressionAttrs defaults;
  EXPECT_EQ(defaults.max_output_boxes_per_class, 0);
  EXPECT_EQ(defaults.iou_threshold, 0.0);
  EXPECT_FALSE(defaults.has_score_threshold());
  EXPECT_EQ(defaults.center_point_box, 0);
}

TEST(NonMaxSuppressionOpTest, EmptyInputsAreFine) {
  auto max10 = Attrs({{"max_output_boxes_per_class", int64_t{10}}});
  absl::StatusOr<std::vector<TensorType>> no_boxes =
      InferTypes(kOp, max10, Operands(Shape({1, 0, 4}), Shape({1, 3, 0})));
  ASSERT_TRUE(no_boxes.ok()) << no_boxes.status();
  EXPECT_EQ((*no_boxes)[0].shape, Shape({0, 3}));
  absl::StatusOr<std::vector<TensorType>> no_classes =
      InferTypes(kOp, max10, Operands(Shape({2, 4, 4}), Shape({2, 0, 4})));
  ASSERT_TRUE(no_classes.ok()) << no_classes.status();
  EXPECT_EQ((*no_classes)[0].shape, Shape({0, 3}));
}

TEST(NonMaxSuppressionOpTest, RejectsBadShapes) {
  EXPECT_THAT(InferTypes(kOp, {}, Operands(Shape({5, 4}), Shape({1, 1, 5}))),
              StatusIs(kInvalid, "boxes must be rank 3"));
  EXPECT_THAT(InferTypes(kOp, {}, Operands(Shape({1, 5, 5}), Shape({1, 1, 5}))),
              StatusIs(kInvalid, "boxes must be [batch, boxes, 4], got [1, 5, 5]"));
  EXPECT_THAT(InferTypes(kOp, {}, Operands(Shape({1, 5, 4}), Shape({1, 5}))),
              StatusIs(kInvalid, "scores must be rank 3"));
  EXPECT_THAT(InferTypes(kOp, {}, Operands(Shape({1, 5, 4}), Shape({1, 2, 6}))),
              StatusIs(kInvalid,
                       "scores must be [batch, classes, boxes] = [1, classes, 5]"));
  EXPECT_THAT(InferTypes(kOp, {}, Operands(Shape({2, 5, 4}), Shape({1, 2, 5}))),
              StatusIs(kInvalid, "scores must be [batch, classes, boxes]"));
  EXPECT_THAT(InferTypes(kOp, {}, {{Shape({1, 5, 4}), DType::kFloat32}}),
              StatusIs(kInvalid, "takes 2 operands"));
}

TEST(NonMaxSuppressionOpTest, RejectsOtherDTypes) {
  EXPECT_THAT(InferTypes(kOp, {},
                         {{Shape({1, 5, 4}), DType::kFloat16},
                          {Shape({1, 1, 5}), DType::kFloat32}}),
              StatusIs(kInvalid, "boxes is float16; non_max_suppression takes float32"));
  EXPECT_THAT(InferTypes(kOp, {},
                         {{Shape({1, 5, 4}), DType::kFloat32},
                          {Shape({1, 1, 5}), DType::kInt64}}),
              StatusIs(kInvalid, "scores is int64"));
}

TEST(NonMaxSuppressionOpTest, RejectsBadAttributes) {
  const std::vector<TensorType> ops = Operands(Shape({1, 5, 4}), Shape({1, 1, 5}));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"max_output_boxes_per_class", int64_t{-1}}}), ops),
              StatusIs(kInvalid, "'max_output_boxes_per_class' must be >= 0"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"iou_threshold", 1.5}}), ops),
              StatusIs(kInvalid, "'iou_threshold' must be in [0, 1]"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"iou_threshold", -0.1}}), ops),
              StatusIs(kInvalid, "'iou_threshold' must be in [0, 1]"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"iou_threshold", double{kNaN}}}), ops),
              StatusIs(kInvalid, "'iou_threshold' must be in [0, 1]"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"score_threshold", double{kNaN}}}), ops),
              StatusIs(kInvalid, "'score_threshold' must be a number below +inf"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"score_threshold", double{kInf}}}), ops),
              StatusIs(kInvalid, "'score_threshold'"));
  EXPECT_THAT(InferTypes(kOp, Attrs({{"center_point_box", int64_t{2}}}), ops),
              StatusIs(kInvalid, "'center_point_box' must be 0"));
  EXPECT_TRUE(InferTypes(kOp, Attrs({{"iou_threshold", int64_t{1}}}), ops).ok())
      << "an int where a float is declared is accepted, as everywhere";
  EXPECT_THAT(InferTypes(kOp, Attrs({{"center_point_box", 1.0}}), ops),
              StatusIs(kInvalid, "center_point_box"));
}

TEST(NonMaxSuppressionOpTest, RejectsRowCountsPastInt64) {
  const int64_t big = int64_t{1} << 21;
  EXPECT_THAT(
      InferTypes(kOp, Attrs({{"max_output_boxes_per_class", big}}),
                 Operands(Shape({big, big, 4}), Shape({big, big, big}))),
      StatusIs(kInvalid, "more than int64 holds"));
}

TEST(NonMaxSuppressionOpTest, FlopsBoundThePairsCompared) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(kOp);
  ASSERT_TRUE(def.ok());
  const std::vector<Shape> shapes = {Shape({2, 100, 4}), Shape({2, 3, 100})};
  const AttrMap max10 = Attrs({{"max_output_boxes_per_class", int64_t{10}}});
  EXPECT_EQ((*def)->Flops(max10, shapes, Shape({60, 3})), 2 * 3 * 10 * 100 * 13);
  EXPECT_EQ((*def)->Flops(AttrMap(), shapes, Shape({0, 3})), 0);
  const int64_t huge = int64_t{1} << 40;
  EXPECT_EQ((*def)->Flops(max10, {Shape({huge, huge, 4}), Shape({huge, huge, huge})},
                          Shape({0, 3})),
            INT64_MAX);
}

TEST(NonMaxSuppressionAttrsTest, RoundTrips) {
  NonMaxSuppressionAttrs a;
  a.max_output_boxes_per_class = 7;
  a.iou_threshold = 0.25;
  a.score_threshold = -0.5;
  a.center_point_box = 1;
  absl::StatusOr<NonMaxSuppressionAttrs> back =
      NonMaxSuppressionAttrs::FromAttrMap(a.ToAttrMap());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->max_output_boxes_per_class, 7);
  EXPECT_EQ(back->iou_threshold, 0.25);
  EXPECT_EQ(back->score_threshold, -0.5);
  EXPECT_TRUE(back->has_score_threshold());
  EXPECT_EQ(back->center_point_box, 1);
}

// ------------------------------------------------------------ geometry

TEST(NmsGeometryTest, CornersInAnyOrder) {
  const float a[] = {1, 2, 5, 10};   // y1, x1, y2, x2
  const float b[] = {5, 10, 1, 2};   // the same corners swapped
  const float c[] = {5, 2, 1, 10};   // the other diagonal
  for (const float* box : {a, b, c}) {
    const NmsBox d = DecodeNmsBox(box, 0);
    EXPECT_TRUE(d.valid);
    EXPECT_EQ(d.min0, 1);
    EXPECT_EQ(d.max0, 5);
    EXPECT_EQ(d.min1, 2);
    EXPECT_EQ(d.max1, 10);
    EXPECT_EQ(d.area, 32);
  }
}

TEST(NmsGeometryTest, CenterFormat) {
  const float box[] = {10, 20, 4, 6};  // x_center, y_center, width, height
  const NmsBox d = DecodeNmsBox(box, 1);
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.min0, 17);  // y
  EXPECT_EQ(d.max0, 23);
  EXPECT_EQ(d.min1, 8);   // x
  EXPECT_EQ(d.max1, 12);
  EXPECT_EQ(d.area, 24);
  const float negative_width[] = {10, 20, -4, 6};
  EXPECT_FALSE(DecodeNmsBox(negative_width, 1).valid);
  const float both_negative[] = {10, 20, -4, -6};
  EXPECT_FALSE(DecodeNmsBox(both_negative, 1).valid);
}

TEST(NmsGeometryTest, BoxesThatOverlapNothing) {
  const float zero_width[] = {0, 1, 5, 1};
  const float point[] = {3, 3, 3, 3};
  const float nan[] = {0, 0, kNaN, 1};
  const float inf[] = {0, 0, kInf, 1};
  const float huge[] = {-3e38f, -3e38f, 3e38f, 3e38f};  // finite area in double
  for (const float* box : {zero_width, point, nan, inf}) {
    const NmsBox d = DecodeNmsBox(box, 0);
    EXPECT_FALSE(d.valid);
    EXPECT_EQ(d.area, 0);
    EXPECT_EQ(d.min0, 0);
    EXPECT_EQ(d.max1, 0);
  }
  EXPECT_TRUE(DecodeNmsBox(huge, 0).valid);
}

TEST(NmsGeometryTest, CandidateOrder) {
  // Descending; ties (and -0 == +0) by index; NaN never a candidate.
  const float scores[] = {0.5f, 0.9f, kNaN, 0.5f, -0.0f, 0.0f, -kInf, 0.9f, 0.5f};
  std::vector<int64_t> order;
  NmsCandidateOrder(scores, 9, NonMaxSuppressionAttrs(), &order);
  EXPECT_THAT(order, ElementsAre(1, 7, 0, 3, 8, 4, 5, 6));
  NonMaxSuppressionAttrs threshold;
  threshold.score_threshold = 0.5;  // strictly greater
  NmsCandidateOrder(scores, 9, threshold, &order);
  EXPECT_THAT(order, ElementsAre(1, 7));
  threshold.score_threshold = -1e300;  // -inf scores are below any threshold
  NmsCandidateOrder(scores, 9, threshold, &order);
  EXPECT_THAT(order, ElementsAre(1, 7, 0, 3, 8, 4, 5));
  NmsCandidateOrder(scores, 0, NonMaxSuppressionAttrs(), &order);
  EXPECT_TRUE(order.empty());
}

TEST(NmsGeometryTest, Iou) {
  const float a[] = {0, 0, 1, 2};
  const float b[] = {0, 0, 1, 1};
  const float c[] = {0, 2, 1, 3};  // touches a along an edge
  EXPECT_EQ(NmsIou(DecodeNmsBox(a, 0), DecodeNmsBox(b, 0)), 0.5);
  EXPECT_EQ(NmsIou(DecodeNmsBox(a, 0), DecodeNmsBox(c, 0)), 0.0);
  EXPECT_EQ(NmsIou(DecodeNmsBox(a, 0), DecodeNmsBox(a, 0)), 1.0);
  // 1/3 in double, exactly as the kernels compute it.
  const float d[] = {0, 0, 1, 2}, e[] = {0, 1, 1, 3};
  EXPECT_EQ(NmsIou(DecodeNmsBox(d, 0), DecodeNmsBox(e, 0)), 1.0 / 3.0);
}

TEST(NmsGeometryTest, RowsPerClass) {
  EXPECT_EQ(NmsRowsPerClass(10, 0), 0);
  EXPECT_EQ(NmsRowsPerClass(10, 3), 3);
  EXPECT_EQ(NmsRowsPerClass(10, std::numeric_limits<int64_t>::max()), 10);
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
