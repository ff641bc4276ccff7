#include "core/slow_op.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ShortNodeName, KeepsShortNamesAndShortensFusedAndLongOnes) {
  EXPECT_EQ(ShortNodeName("/layer1/conv/conv2d"), "/layer1/conv/conv2d");
  std::string fused = "/conv1/Conv/conv2d";
  for (int i = 0; i < 40; ++i) fused += "+/layer" + std::to_string(i) + "/relu";
  fused += "+/fc/Gemm/linear";
  EXPECT_EQ(ShortNodeName(fused), "/conv1/Conv/conv2d+...+/fc/Gemm/linear (42 nodes)");
  const std::string path = std::string(150, 'a') + "/tail";
  const std::string shown = ShortNodeName(path);
  EXPECT_EQ(shown.size(), 100u);
  EXPECT_EQ(shown.substr(0, 3), "...");
  EXPECT_EQ(shown.substr(shown.size() - 5), "/tail");
}

TEST(SlowOpAdvice, SaysWhatHelpsForEachKind) {
  EXPECT_THAT(SlowOpAdvice("/rpn/NonMaxSuppression/nms", "host"),
              HasSubstr("detections_per_img"));
  EXPECT_THAT(SlowOpAdvice("input h2d", "cuda:0"), HasSubstr("keep the data on the device"));
  EXPECT_THAT(SlowOpAdvice("/roi_heads/Reshape", "host"), HasSubstr("device waits"));
  const std::string conv = SlowOpAdvice("/layer1/conv/conv2d", "cpu:0");
  EXPECT_THAT(conv, HasSubstr("another device"));
  EXPECT_LE(SlowOpAdvice("nms", "host").size(), 160u);
  EXPECT_THAT(conv, Not(HasSubstr("suppression")));
}

}  // namespace
}  // namespace switchyard
