#include "runtime/output_summary.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

TEST(OutputSummaryTest, ClassScoresAreRankTwoFloatingWithSeveralClasses) {
  EXPECT_TRUE(LooksLikeClassScores(Shape({1, 1000}), DType::kFloat32));
  EXPECT_TRUE(LooksLikeClassScores(Shape({8, 10}), DType::kFloat16));
  EXPECT_FALSE(LooksLikeClassScores(Shape({1, 1}), DType::kFloat32));
  EXPECT_FALSE(LooksLikeClassScores(Shape({0, 10}), DType::kFloat32));
  EXPECT_FALSE(LooksLikeClassScores(Shape({1, 10}), DType::kInt64));
  EXPECT_FALSE(LooksLikeClassScores(Shape(), DType::kFloat32));
  EXPECT_FALSE(LooksLikeClassScores(Shape({1, 3, 8, 8}), DType::kFloat32));
}

TEST(OutputSummaryTest, TopKBestFirstAndNothingForOtherRanks) {
  HostArray scores(Shape({2, 3}), {0.1f, 0.7f, 0.2f, 5, 4, 6});
  const auto top = TopK(scores, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0][0].first, 1);
  EXPECT_EQ(top[0][1].first, 2);
  EXPECT_EQ(top[1][0].first, 2);
  EXPECT_TRUE(TopK(HostArray(Shape(), {3}), 5).empty());  // a scalar: no crash
  EXPECT_TRUE(TopK(HostArray(Shape({0, 4}), std::vector<float>()), 5).empty());
}

TEST(OutputSummaryTest, ScalarEmptyAndIntegerLines) {
  EXPECT_EQ(SummaryLine("y", HostArray::Of<int64_t>(Shape(), std::vector<int64_t>{60})),
            "y [] int64: value 60");
  EXPECT_EQ(SummaryLine("boxes", HostArray(Shape({0, 4}), std::vector<float>())),
            "boxes [0, 4] float32: empty");
  EXPECT_EQ(SummaryLine("", HostArray::Of<int64_t>(Shape({2, 4}),
                                                   std::vector<int64_t>{3, 0, 9, 2, 7, 1, 8, 5})),
            "[2, 4] int64: min 0, max 9, first values 3, 0, 9, 2, 7, 1 (of 8)");
  EXPECT_EQ(SummaryLine("m", HostArray(Shape({3}), {0.5f, -1.25f, NAN})),
            "m [3] float32: min -1.25, max 0.5, first values 0.5, -1.25, nan");
}

TEST(OutputSummaryTest, JsonHasShapeDtypeRangeAndFirstValues) {
  const nlohmann::json j =
      SummaryJson(HostArray::Of<int32_t>(Shape({3}), std::vector<int32_t>{4, -2, 7}));
  EXPECT_EQ(j["shape"], nlohmann::json::array({3}));
  EXPECT_EQ(j["dtype"], "int32");
  EXPECT_EQ(j["min"], -2);
  EXPECT_EQ(j["max"], 7);
  EXPECT_EQ(j["first_values"].size(), 3u);
  const nlohmann::json empty = SummaryJson(HostArray(Shape({0}), std::vector<float>()));
  EXPECT_FALSE(empty.contains("min"));
  EXPECT_EQ(empty["elements"], 0);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
