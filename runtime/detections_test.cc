#include "runtime/detections.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;

std::vector<HostArray> Detector(int64_t k) {
  std::vector<float> boxes;
  std::vector<int64_t> labels;
  std::vector<float> scores;
  for (int64_t i = 0; i < k; ++i) {
    boxes.insert(boxes.end(), {float(i), float(2 * i), float(i + 10), float(2 * i + 10)});
    labels.push_back(i % 3);
    scores.push_back(0.1f * static_cast<float>(i + 1));
  }
  return {HostArray::Of<float>(Shape({k, 4}), boxes), HostArray::Of<int64_t>(Shape({k}), labels),
          HostArray::Of<float>(Shape({k}), scores)};
}

TEST(DetectionsTest, FoundByNameOrShapeAndPrintedBestFirst) {
  std::vector<HostArray> outputs = Detector(4);
  std::optional<DetectionOutputs> d = FindDetections(outputs, {"boxes", "labels", "scores"});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->labels, 1u);
  // Unnamed outputs in another order: found by shape.
  std::vector<HostArray> shuffled = {outputs[2], outputs[0], outputs[1]};
  d = FindDetections(shuffled, {"a", "b", "c"});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->boxes, 1u);
  EXPECT_EQ(d->labels, 2u);
  EXPECT_EQ(d->scores, 0u);
  const std::string text = FormatDetections(shuffled, *d, {"background", "cat"}, 2);
  EXPECT_THAT(text, HasSubstr("detections: 4 (the 2 best by score)"));
  EXPECT_THAT(text, HasSubstr("1. background (class 0)  score 0.400  box (3.0, 6.0, 13.0, 16.0)"));
  EXPECT_THAT(text, HasSubstr("2. class 2  score 0.300  box (2.0, 4.0, 12.0, 14.0)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\n  3. ")));
  EXPECT_EQ(DetectionsJson(shuffled, *d, {})[3]["score"].get<double>(), double(0.4f));
}

TEST(DetectionsTest, NoDetectionsIsStillDetectionsAndOtherOutputsAreNot) {
  std::vector<HostArray> empty = Detector(0);
  std::optional<DetectionOutputs> d = FindDetections(empty, {"boxes", "labels", "scores"});
  ASSERT_TRUE(d.has_value());
  EXPECT_THAT(FormatDetections(empty, *d, {}, 10), HasSubstr("detections: 0\n"));
  // A classifier's logits, or boxes without matching scores, are not.
  EXPECT_FALSE(FindDetections({HostArray(Shape({1, 1000}), std::vector<float>(1000))}, {"y"}));
  std::vector<HostArray> mismatched = Detector(3);
  mismatched[2] = HostArray::Of<float>(Shape({2}), std::vector<float>{1, 2});
  EXPECT_FALSE(FindDetections(mismatched, {"boxes", "labels", "scores"}));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
