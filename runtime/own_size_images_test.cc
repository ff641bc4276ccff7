#include "runtime/own_size_images.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

OwnSizeImageTimes Times(double waited, double model, double compile, int64_t plans) {
  OwnSizeImageTimes t;
  t.read_decode = waited;
  t.to_tensor = 1;
  t.waited = waited;
  t.model = model;
  t.compile = compile;
  t.plans_compiled = plans;
  return t;
}

TEST(OwnSizeImagesTest, TakesOneFloatImageOfThreeChannels) {
  OnnxValueInfo image;
  image.name = "image";
  image.dtype = DType::kFloat32;
  image.has_shape = true;
  image.dims = {3, std::nullopt, std::nullopt};
  image.dim_names = {"", "h", "w"};
  EXPECT_TRUE(TakesOneImageAtItsOwnSize({image}));
  OnnxValueInfo batch = image;
  batch.dims = {std::nullopt, 3, std::nullopt, std::nullopt};
  batch.dim_names = {"n", "", "h", "w"};
  EXPECT_FALSE(TakesOneImageAtItsOwnSize({batch}));
  OnnxValueInfo gray = image;
  gray.dims[0] = 1;
  EXPECT_FALSE(TakesOneImageAtItsOwnSize({gray}));
  EXPECT_FALSE(TakesOneImageAtItsOwnSize({image, image}));
}

TEST(OwnSizeImagesTest, MediansTotalsAndTheModelsVerdict) {
  const OwnSizeSummary s = SummarizeOwnSizeImages(
      {Times(1, 100, 0, 0), Times(2, 300, 10, 4), Times(3, 200, 0, 0)}, Device::Cpu());
  EXPECT_DOUBLE_EQ(s.median_model, 200);
  EXPECT_DOUBLE_EQ(s.median_read_decode, 2);
  EXPECT_DOUBLE_EQ(s.input_total, 6);
  EXPECT_DOUBLE_EQ(s.compile_total, 10);
  EXPECT_DOUBLE_EQ(s.model_total, 600);
  EXPECT_EQ(s.new_sizes, 1);
  EXPECT_DOUBLE_EQ(s.images_per_s, 5);
  EXPECT_EQ(s.bound, OwnSizeSummary::Bound::kModel);
  EXPECT_EQ(s.verdict, "the model takes 97% of the time on cpu:0");
}

TEST(OwnSizeImagesTest, InputAndCompileBoundVerdicts) {
  const OwnSizeSummary input =
      SummarizeOwnSizeImages({Times(80, 20, 0, 0), Times(80, 20, 0, 0)}, Device::Cpu());
  EXPECT_EQ(input.bound, OwnSizeSummary::Bound::kInput);
  EXPECT_THAT(input.verdict, StartsWith("input-bound: 80% of the time cpu:0 waits"));
  const OwnSizeSummary compile =
      SummarizeOwnSizeImages({Times(0, 10, 90, 3), Times(0, 10, 0, 0)}, Device::Cpu());
  EXPECT_EQ(compile.bound, OwnSizeSummary::Bound::kCompile);
  EXPECT_THAT(compile.verdict, StartsWith("compile-bound: 82% of the time"));
  EXPECT_THAT(compile.verdict, HasSubstr("(1 of 2 images)"));
}

TEST(OwnSizeImagesTest, NoImagesIsNoTime) {
  const OwnSizeSummary s = SummarizeOwnSizeImages({}, Device::Cpu());
  EXPECT_EQ(s.images_per_s, 0);
  EXPECT_EQ(s.new_sizes, 0);
}

TEST(OwnSizeImagesTest, AFileThatIsNoImageIsAnError) {
  const OwnSizeImage loaded = LoadImageAtItsOwnSize("/nonexistent/switchyard/cat.jpg");
  EXPECT_FALSE(loaded.image.ok());
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
