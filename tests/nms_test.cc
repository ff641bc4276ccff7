// The rules of non_max_suppression (ops/non_max_suppression.cc) and of
// functional::Nms / BatchedNms, each shown on a small hand-made case, on
// every device linked here (cpu, ref, and each cuda:N there is): ties,
// boxes that overlap nothing, inverted corners (ONNX for the op, torchvision
// for Nms), NaN and -inf scores, IoU exactly at the threshold, the score
// threshold, the max output and the padded output; then larger random cases
// against the reference backend, and the errors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/functional.h"
#include "ops/nms_attrs.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

BackendRegistry& Registry() { return BackendRegistry::Global(); }

// The op's two outputs, as they come: every padded row, and the count.
struct OpOutputs {
  std::vector<int64_t> rows;  // 3 per row
  int64_t count = -1;
};

class NmsTest : public ::testing::TestWithParam<std::string> {
 protected:
  Device device() const { return *Device::Parse(GetParam()); }

  Tensor Floats(const Shape& shape, const std::vector<float>& values) {
    absl::StatusOr<Tensor> t =
        Tensor::FromVector(shape, values, device(), Registry());
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }
  Tensor Int64s(const std::vector<int64_t>& values) {
    absl::StatusOr<BackendDevice*> d = Registry().GetDevice(device());
    EXPECT_TRUE(d.ok());
    absl::StatusOr<Tensor> t = Tensor::FromValues<int64_t>(
        Shape({static_cast<int64_t>(values.size())}), values, **d);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }
  static std::vector<int64_t> Values(const absl::StatusOr<Tensor>& t) {
    EXPECT_TRUE(t.ok()) << t.status();
    if (!t.ok()) return {};
    absl::StatusOr<std::vector<int64_t>> v = t->ToHost<int64_t>();
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::vector<int64_t>{};
  }

  // torchvision-style: boxes (x1, y1, x2, y2).
  std::vector<int64_t> Nms(const std::vector<float>& boxes,
                           const std::vector<float>& scores, double iou) {
    const int64_t n = static_cast<int64_t>(scores.size());
    return Values(functional::Nms(Floats(Shape({n, 4}), boxes),
                                  Floats(Shape({n}), scores), iou, Registry()));
  }

  // The op on one batch and one class, trimmed: the selected box indices.
  std::vector<int64_t> OpSelects(const std::vector<float>& boxes,
                                 const std::vector<float>& scores,
                                 NonMaxSuppressionAttrs attrs) {
    const int64_t n = static_cast<int64_t>(scores.size());
    absl::StatusOr<Tensor> rows = functional::NonMaxSuppression(
        Floats(Shape({1, n, 4}), boxes), Floats(Shape({1, 1, n}), scores),
        attrs, Registry());
    std::vector<int64_t> all = Values(rows), boxes_only;
    for (size_t i = 2; i < all.size(); i += 3) boxes_only.push_back(all[i]);
    return boxes_only;
  }

  OpOutputs RunOp(const Shape& boxes_shape, const std::vector<float>& boxes,
                  const Shape& scores_shape, const std::vector<float>& scores,
                  const NonMaxSuppressionAttrs& attrs) {
    absl::StatusOr<std::vector<Tensor>> out = functional::Call(
        "non_max_suppression",
        {Floats(boxes_shape, boxes), Floats(scores_shape, scores)},
        attrs.ToAttrMap(), Registry());
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    EXPECT_EQ(out->size(), 2u);
    OpOutputs o;
    o.rows = Values((*out)[0]);
    std::vector<int64_t> count = Values((*out)[1]);
    if (count.size() == 1) o.count = count[0];
    return o;
  }
};

NonMaxSuppressionAttrs Attrs(int64_t max_output, double iou,
                             double score_threshold =
                                 NonMaxSuppressionAttrs::kNoScoreThreshold) {
  NonMaxSuppressionAttrs a;
  a.max_output_boxes_per_class = max_output;
  a.iou_threshold = iou;
  a.score_threshold = score_threshold;
  return a;
}

// Four disjoint unit squares.
const std::vector<float> kDisjoint = {0, 0, 1, 1, 10, 0, 11, 1,
                                      20, 0, 21, 1, 30, 0, 31, 1};

TEST_P(NmsTest, EqualScoresLowerIndexFirst) {
  EXPECT_THAT(Nms(kDisjoint, {0.5f, 0.5f, 0.5f, 0.5f}, 0.5),
              ElementsAre(0, 1, 2, 3));
  // -0 equals +0.
  EXPECT_THAT(Nms(kDisjoint, {0.0f, -0.0f, 0.0f, -0.0f}, 0.5),
              ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(Nms(kDisjoint, {0.5f, 0.7f, 0.5f, 0.7f}, 0.5),
              ElementsAre(1, 3, 0, 2));
  // Identical boxes with equal scores: the lower index wins and suppresses.
  const std::vector<float> same = {0, 0, 4, 4, 0, 0, 4, 4, 0, 0, 4, 4};
  EXPECT_THAT(Nms(same, {0.3f, 0.3f, 0.3f}, 0.5), ElementsAre(0));
  EXPECT_THAT(Nms(same, {0.3f, 0.4f, 0.4f}, 0.5), ElementsAre(1));
}

TEST_P(NmsTest, IouAtTheThresholdKeepsTheBox) {
  // IoU exactly 1/2 and 3/4 (exact in float and double).
  const std::vector<float> boxes = {0, 0, 2, 1, 0, 0, 1, 1,
                                    10, 0, 14, 1, 11, 0, 14, 1};
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f};
  EXPECT_THAT(Nms(boxes, scores, 0.5), ElementsAre(0, 1, 2));
  EXPECT_THAT(Nms(boxes, scores, 0.75), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(Nms(boxes, scores, 0.4999), ElementsAre(0, 2));
  EXPECT_THAT(OpSelects(boxes, scores, Attrs(4, 0.5)), ElementsAre(0, 1, 2));
}

TEST_P(NmsTest, ThresholdZeroSuppressesAnyOverlapButNotTouching) {
  const std::vector<float> boxes = {0, 0, 2, 2,   2, 0, 4, 2,  // share an edge
                                    1, 1, 3, 3,                 // overlaps both
                                    2, 2, 3, 3};                // a corner of 0
  EXPECT_THAT(Nms(boxes, {0.9f, 0.8f, 0.7f, 0.6f}, 0.0), ElementsAre(0, 1, 3));
  EXPECT_THAT(OpSelects(boxes, {0.9f, 0.8f, 0.7f, 0.6f}, Attrs(9, 0.0)),
              ElementsAre(0, 1, 3));
}

TEST_P(NmsTest, BoxesWithoutAreaOverlapNothing) {
  const std::vector<float> boxes = {0, 0, 10, 10,  // a box
                                    5, 5, 5, 5,    // a point inside it
                                    2, 0, 2, 10,   // zero width, across it
                                    0, 3, 10, 3,   // zero height
                                    0, 0, 10, 10};  // the box again
  const std::vector<float> scores = {0.9f, 0.95f, 0.8f, 0.7f, 0.6f};
  EXPECT_THAT(Nms(boxes, scores, 0.0), ElementsAre(1, 0, 2, 3));
  EXPECT_THAT(OpSelects(boxes, scores, Attrs(5, 0.0)), ElementsAre(1, 0, 2, 3));
}

TEST_P(NmsTest, NonFiniteCoordinatesOverlapNothing) {
  const std::vector<float> boxes = {0, 0, 10, 10, 0, 0, kNaN, 10,
                                    0, 0, kInf, 10, -kInf, 0, 10, 10};
  EXPECT_THAT(Nms(boxes, {0.9f, 0.8f, 0.7f, 0.6f}, 0.0), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(Nms(boxes, {0.1f, 0.8f, 0.7f, 0.6f}, 0.0), ElementsAre(1, 2, 3, 0));
}

TEST_P(NmsTest, InvertedCornersOnnxOrdersThemTorchvisionIgnoresThem) {
  // Box 0 is box 1 with its corners swapped.
  const std::vector<float> boxes = {10, 10, 0, 0, 0, 0, 10, 10};
  // The op (ONNX: any two diagonal corners): the same box, so IoU 1.
  EXPECT_THAT(OpSelects(boxes, {0.9f, 0.8f}, Attrs(2, 0.5)), ElementsAre(0));
  // The other diagonal, and center format does not reorder.
  EXPECT_THAT(OpSelects({0, 10, 10, 0, 0, 0, 10, 10}, {0.9f, 0.8f}, Attrs(2, 0.5)),
              ElementsAre(0));
  // Nms (torchvision): x1 > x2 or y1 > y2 overlaps nothing.
  EXPECT_THAT(Nms(boxes, {0.9f, 0.8f}, 0.5), ElementsAre(0, 1));
  EXPECT_THAT(Nms({0, 10, 10, 0, 0, 0, 10, 10}, {0.9f, 0.8f}, 0.5),
              ElementsAre(0, 1));
  EXPECT_THAT(Nms({10, 0, 0, 10, 0, 0, 10, 10}, {0.8f, 0.9f}, 0.0),
              ElementsAre(1, 0));
}

TEST_P(NmsTest, NanScoresAreNeverSelectedAndSuppressNothing) {
  const std::vector<float> same = {0, 0, 4, 4, 0, 0, 4, 4, 0, 0, 4, 4};
  EXPECT_THAT(Nms(same, {kNaN, 0.5f, 0.7f}, 0.5), ElementsAre(2));
  EXPECT_THAT(Nms(same, {kNaN, 0.5f, kNaN}, 0.5), ElementsAre(1));
  EXPECT_THAT(Nms(same, {kNaN, kNaN, kNaN}, 0.5), IsEmpty());
  EXPECT_THAT(OpSelects(same, {kNaN, 0.5f, 0.7f}, Attrs(3, 0.5)), ElementsAre(2));
}

TEST_P(NmsTest, MinusInfinityIsAScoreUnlessThereIsAThreshold) {
  EXPECT_THAT(Nms(kDisjoint, {-kInf, 0.5f, -kInf, -1e30f}, 0.5),
              ElementsAre(1, 3, 0, 2));
  EXPECT_THAT(OpSelects(kDisjoint, {-kInf, 0.5f, -kInf, -1e30f},
                        Attrs(4, 0.5, -1e300)),
              ElementsAre(1, 3));
}

TEST_P(NmsTest, ScoreThresholdIsStrict) {
  EXPECT_THAT(OpSelects(kDisjoint, {0.5f, 0.6f, 0.4f, 0.5f}, Attrs(4, 0.5, 0.5)),
              ElementsAre(1));
  EXPECT_THAT(OpSelects(kDisjoint, {0.5f, 0.6f, 0.4f, 0.5f}, Attrs(4, 0.5, 0.45)),
              ElementsAre(1, 0, 3));
}

TEST_P(NmsTest, MaxOutputStopsSelection) {
  EXPECT_THAT(OpSelects(kDisjoint, {0.1f, 0.4f, 0.3f, 0.2f}, Attrs(2, 0.5)),
              ElementsAre(1, 2));
  EXPECT_THAT(OpSelects(kDisjoint, {0.1f, 0.4f, 0.3f, 0.2f}, Attrs(1, 0.5)),
              ElementsAre(1));
  // ONNX's default of 0 selects nothing.
  EXPECT_THAT(OpSelects(kDisjoint, {0.1f, 0.4f, 0.3f, 0.2f},
                        NonMaxSuppressionAttrs()),
              IsEmpty());
}

TEST_P(NmsTest, PaddedRowsInOnnxOrderThenMinusOnes) {
  // 2 batches x 2 classes x 3 boxes, at most 2 per class: 8 rows.
  const std::vector<float> boxes = {0, 0, 1, 1,  0, 0, 1, 1,  5, 5, 6, 6,    // n 0
                                    0, 0, 1, 1,  3, 3, 4, 4,  5, 5, 6, 6};   // n 1
  const std::vector<float> scores = {0.1f, 0.9f, 0.5f,   // n 0, c 0
                                     kNaN, kNaN, kNaN,   // n 0, c 1
                                     0.3f, 0.2f, 0.1f,   // n 1, c 0
                                     0.1f, 0.2f, 0.3f};  // n 1, c 1
  OpOutputs o = RunOp(Shape({2, 3, 4}), boxes, Shape({2, 2, 3}), scores,
                      Attrs(2, 0.5));
  EXPECT_EQ(o.count, 6);
  EXPECT_THAT(o.rows, ElementsAre(0, 0, 1, 0, 0, 2,  //
                                  1, 0, 0, 1, 0, 1,  //
                                  1, 1, 2, 1, 1, 1,  //
                                  -1, -1, -1, -1, -1, -1));
}

TEST_P(NmsTest, CenterPointBox) {
  // [x_center, y_center, width, height]: 0 and 1 overlap with IoU 12 / 20;
  // 2 has a negative width (overlaps nothing), on top of 0.
  const std::vector<float> boxes = {5, 5, 4, 4, 6, 5, 4, 4, 5, 5, -4, 4};
  NonMaxSuppressionAttrs a = Attrs(3, 0.5);
  a.center_point_box = 1;
  EXPECT_THAT(OpSelects(boxes, {0.9f, 0.8f, 0.7f}, a), ElementsAre(0, 2));
  a.iou_threshold = 0.6;
  EXPECT_THAT(OpSelects(boxes, {0.9f, 0.8f, 0.7f}, a), ElementsAre(0, 1, 2));
}

TEST_P(NmsTest, EmptyInputs) {
  EXPECT_THAT(Nms({}, {}, 0.5), IsEmpty());
  OpOutputs no_classes =
      RunOp(Shape({2, 3, 4}), std::vector<float>(24, 1.0f), Shape({2, 0, 3}),
            {}, Attrs(3, 0.5));
  EXPECT_EQ(no_classes.count, 0);
  EXPECT_THAT(no_classes.rows, IsEmpty());
  EXPECT_THAT(functional::BatchedNms(Floats(Shape({0, 4}), {}),
                                     Floats(Shape({0}), {}), Int64s({}), 0.5,
                                     Registry())
                  ->shape(),
              Shape({0}));
}

TEST_P(NmsTest, BatchedCategoriesNeverSuppressEachOther) {
  // Boxes 0, 1 and 2 are the same box; 1 is another category.
  const std::vector<float> boxes = {0, 0, 4, 4, 0, 0, 4, 4, 0, 0, 4, 4,
                                    10, 10, 12, 12};
  absl::StatusOr<Tensor> keep = functional::BatchedNms(
      Floats(Shape({4, 4}), boxes), Floats(Shape({4}), {0.9f, 0.8f, 0.85f, 0.95f}),
      Int64s({7, -3, 7, 7}), 0.5, Registry());
  EXPECT_THAT(Values(keep), ElementsAre(3, 0, 1));
  EXPECT_EQ(keep->device(), device());
}

TEST_P(NmsTest, BatchedMatchesNmsPerCategory) {
  // One large category, many singletons and a few mid-sized ones, so that
  // the categories are spread over several padded calls.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0, 1);
  const int64_t n = 400;
  std::vector<float> boxes, scores;
  std::vector<int64_t> categories;
  for (int64_t i = 0; i < n; ++i) {
    const float x = 100 * unit(rng), y = 100 * unit(rng);
    boxes.insert(boxes.end(), {x, y, x + 5 + 20 * unit(rng), y + 5 + 20 * unit(rng)});
    scores.push_back(unit(rng));
    categories.push_back(i < 200 ? 0 : i < 260 ? 1 + i % 3 : i);
  }
  absl::StatusOr<Tensor> keep = functional::BatchedNms(
      Floats(Shape({n, 4}), boxes), Floats(Shape({n}), scores),
      Int64s(categories), 0.3, Registry());
  std::vector<int64_t> want;
  std::vector<int64_t> distinct = categories;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (int64_t c : distinct) {
    std::vector<int64_t> members;
    std::vector<float> sub_boxes, sub_scores;
    for (int64_t i = 0; i < n; ++i) {
      if (categories[i] != c) continue;
      members.push_back(i);
      sub_boxes.insert(sub_boxes.end(), &boxes[4 * i], &boxes[4 * i + 4]);
      sub_scores.push_back(scores[i]);
    }
    for (int64_t k : Nms(sub_boxes, sub_scores, 0.3)) want.push_back(members[k]);
  }
  std::sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  });
  EXPECT_EQ(Values(keep), want);
  EXPECT_LT(want.size(), static_cast<size_t>(n));  // something was suppressed
}

TEST_P(NmsTest, LargeRandomCasesMatchTheReference) {
  if (GetParam() == "ref:0") GTEST_SKIP() << "the reference itself";
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0, 1);
  const int64_t batches = 2, classes = 3, count = 700;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < batches * count; ++i) {
    // Clustered around 5 centers, corners in either order.
    const float cx = 50 + 200 * static_cast<float>(i % 5), cy = 100;
    const float w = 20 + 60 * unit(rng), h = 20 + 60 * unit(rng);
    const float x = cx + 30 * (unit(rng) - 0.5f), y = cy + 30 * (unit(rng) - 0.5f);
    if (unit(rng) < 0.5f) {
      boxes.insert(boxes.end(), {y - h / 2, x - w / 2, y + h / 2, x + w / 2});
    } else {
      boxes.insert(boxes.end(), {y + h / 2, x + w / 2, y - h / 2, x - w / 2});
    }
  }
  for (int64_t i = 0; i < batches * classes * count; ++i) {
    // Every tenth score tied with its neighbour.
    scores.push_back(i % 10 == 1 ? scores.back() : unit(rng));
  }
  for (double iou : {0.0, 0.3, 0.7, 1.0}) {
    for (int64_t max_output : {int64_t{5}, int64_t{100000}}) {
      SCOPED_TRACE(absl::StrCat("iou ", iou, ", max ", max_output));
      const NonMaxSuppressionAttrs a = Attrs(max_output, iou, 0.1);
      OpOutputs got = RunOp(Shape({batches, count, 4}), boxes,
                            Shape({batches, classes, count}), scores, a);
      absl::StatusOr<std::vector<Tensor>> want = functional::Call(
          "non_max_suppression",
          {*Tensor::FromVector(Shape({batches, count, 4}), boxes,
                               *Device::Parse("ref:0"), Registry()),
           *Tensor::FromVector(Shape({batches, classes, count}), scores,
                               *Device::Parse("ref:0"), Registry())},
          a.ToAttrMap(), Registry());
      ASSERT_TRUE(want.ok()) << want.status();
      EXPECT_EQ(got.count, Values((*want)[1])[0]);
      EXPECT_EQ(got.rows, Values((*want)[0]));
      EXPECT_GT(got.count, 0);
    }
  }
}

std::vector<std::string> Devices() {
  std::vector<std::string> names = {"cpu:0", "ref:0"};
  for (const Device& d : Registry().AvailableDevices()) {
    if (d.type() == "cuda") names.push_back(d.ToString());
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(
    EveryDevice, NmsTest, ::testing::ValuesIn(Devices()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      std::replace(name.begin(), name.end(), ':', '_');
      return name;
    });

// ---------------------------------------------------------------- errors

Tensor CpuFloats(const Shape& shape, const std::vector<float>& values) {
  return *Tensor::FromVector(shape, values, Device::Cpu(), Registry());
}

TEST(NmsErrorsTest, NegativeOrNanIouThreshold) {
  const Tensor boxes = CpuFloats(Shape({1, 4}), {0, 0, 1, 1});
  const Tensor scores = CpuFloats(Shape({1}), {1});
  for (double iou : {-0.1, std::nan("")}) {
    absl::StatusOr<Tensor> keep = functional::Nms(boxes, scores, iou, Registry());
    EXPECT_EQ(keep.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(keep.status().message()),
                HasSubstr("iou_threshold must be >= 0"));
  }
  // Above 1 is 1: nothing is suppressed.
  absl::StatusOr<Tensor> keep = functional::Nms(
      CpuFloats(Shape({2, 4}), {0, 0, 1, 1, 0, 0, 1, 1}),
      CpuFloats(Shape({2}), {1, 2}), 1.5, Registry());
  ASSERT_TRUE(keep.ok()) << keep.status();
  EXPECT_THAT(*keep->ToHost<int64_t>(), ElementsAre(1, 0));
}

TEST(NmsErrorsTest, BadShapesAndDTypes) {
  const Tensor scores = CpuFloats(Shape({2}), {1, 2});
  absl::StatusOr<Tensor> keep = functional::Nms(
      CpuFloats(Shape({2, 5}), std::vector<float>(10)), scores, 0.5, Registry());
  EXPECT_EQ(keep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(keep.status().message()),
              HasSubstr("Nms: boxes must be float32 [B, 4] (x1, y1, x2, y2), "
                        "got float32 [2, 5]"));
  const Tensor boxes = CpuFloats(Shape({2, 4}), std::vector<float>(8));
  keep = functional::Nms(boxes, CpuFloats(Shape({3}), {1, 2, 3}), 0.5, Registry());
  EXPECT_THAT(std::string(keep.status().message()),
              HasSubstr("scores must be float32 [2] (one per box), got float32 [3]"));
  keep = functional::BatchedNms(boxes, scores, CpuFloats(Shape({2}), {0, 1}), 0.5,
                                Registry());
  EXPECT_THAT(std::string(keep.status().message()),
              HasSubstr("idxs must be int64 [2] (the category of each box), got "
                        "float32 [2]"));
}

TEST(NmsErrorsTest, OperandsOnDifferentDevices) {
  const Tensor boxes = CpuFloats(Shape({2, 4}), std::vector<float>(8));
  const Tensor scores = *Tensor::FromVector(Shape({2}), {1, 2},
                                            *Device::Parse("ref:0"), Registry());
  absl::StatusOr<Tensor> keep = functional::Nms(boxes, scores, 0.5, Registry());
  EXPECT_EQ(keep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(keep.status().message()), HasSubstr("ref:0"));
  EXPECT_THAT(std::string(keep.status().message()), HasSubstr("cpu:0"));
  const Tensor idxs = *Tensor::FromValues<int64_t>(
      Shape({2}), std::vector<int64_t>{0, 0},
      **Registry().GetDevice(Device::Cpu()));
  keep = functional::BatchedNms(boxes, scores, idxs, 0.5, Registry());
  EXPECT_THAT(std::string(keep.status().message()),
              HasSubstr("boxes on cpu:0, scores on ref:0, idxs on cpu:0"));
}

TEST(NmsErrorsTest, TheOpHasTwoOutputs) {
  Graph graph;
  const ValueId boxes = graph.AddInput("boxes", Shape({1, 3, 4}), Device::Cpu());
  const ValueId scores = graph.AddInput("scores", Shape({1, 1, 3}), Device::Cpu());
  graph.AddOutput(graph.AddNode("non_max_suppression", "nms", {boxes, scores},
                                AttrMap()));
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("the op makes 2 output(s) but the node has 1"));
}

}  // namespace
}  // namespace switchyard
