#include "runtime/samples_per_run.h"

#include <cctype>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;

// "3" is a fixed dimension, any other word a symbolic one of that name.
OnnxValueInfo Declared(DType dtype, std::vector<std::string> dims) {
  OnnxValueInfo in;
  in.name = "input";
  in.dtype = dtype;
  in.has_shape = true;
  for (const std::string& d : dims) {
    const bool fixed = std::isdigit(static_cast<unsigned char>(d[0]));
    in.dims.push_back(fixed ? std::optional<int64_t>(std::stoll(d)) : std::nullopt);
    in.dim_names.push_back(fixed ? "" : d);
  }
  return in;
}

TEST(SamplesPerRunTest, AnImageWithItsChannelsFirstIsOneSample) {
  // torchvision's detectors: [3, height, width]; the channels are not a batch.
  const OnnxValueInfo detector = Declared(DType::kFloat32, {"3", "height", "width"});
  const SamplesPerRun samples = CountSamplesPerRun(&detector, Shape({3, 180, 300}));
  EXPECT_EQ(samples.count, 1);
  EXPECT_THAT(samples.reason, HasSubstr("one [3, H, W] image per run"));
  const OnnxValueInfo fixed = Declared(DType::kFloat32, {"4", "224", "224"});
  EXPECT_EQ(CountSamplesPerRun(&fixed, Shape({4, 224, 224})).count, 1);
}

TEST(SamplesPerRunTest, ADeclaredBatchIsDimensionZero) {
  const OnnxValueInfo classifier = Declared(DType::kFloat32, {"batch", "3", "64", "64"});
  EXPECT_EQ(CountSamplesPerRun(&classifier, Shape({5, 3, 64, 64})).count, 5);
  EXPECT_EQ(CountSamplesPerRun(&classifier, Shape({5, 3, 64, 64})).reason, "");
  const OnnxValueInfo tokens = Declared(DType::kInt64, {"batch", "seq"});
  EXPECT_EQ(CountSamplesPerRun(&tokens, Shape({2, 128})).count, 2);
  const OnnxValueInfo fixed = Declared(DType::kFloat32, {"8", "3", "224", "224"});
  EXPECT_EQ(CountSamplesPerRun(&fixed, Shape({8, 3, 224, 224})).count, 8);
  // A rank-3 input with a named leading dimension is a batch of sequences.
  const OnnxValueInfo sequences = Declared(DType::kFloat32, {"batch", "seq", "hidden"});
  EXPECT_EQ(CountSamplesPerRun(&sequences, Shape({3, 10, 16})).count, 3);
}

TEST(SamplesPerRunTest, ABatchOfImagesCountsImages) {
  const OnnxValueInfo classifier = Declared(DType::kFloat32, {"batch", "3", "height", "width"});
  EXPECT_EQ(CountSamplesPerRun(&classifier, Shape({5, 3, 64, 64})).unit, "images");
  const OnnxValueInfo tokens = Declared(DType::kInt64, {"batch", "seq"});
  EXPECT_EQ(CountSamplesPerRun(&tokens, Shape({2, 128})).unit, "samples");
  const OnnxValueInfo detector = Declared(DType::kFloat32, {"3", "height", "width"});
  EXPECT_EQ(CountSamplesPerRun(&detector, Shape({3, 180, 300})).unit, "samples");
  EXPECT_EQ(CountSamplesPerRun(nullptr, Shape({4, 3, 32, 32})).unit, "samples");
}

TEST(SamplesPerRunTest, WithoutADeclarationTheFedArrayDecides) {
  EXPECT_EQ(CountSamplesPerRun(nullptr, Shape({4, 3, 32, 32})).count, 4);
  OnnxValueInfo undeclared;
  EXPECT_EQ(CountSamplesPerRun(&undeclared, Shape({6, 2})).count, 6);
}

TEST(SamplesPerRunTest, NoInputOrAScalarIsOneSample) {
  EXPECT_EQ(CountSamplesPerRun(nullptr, Shape()).count, 1);
  const OnnxValueInfo scalar = Declared(DType::kFloat32, {});
  EXPECT_EQ(CountSamplesPerRun(&scalar, Shape()).count, 1);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
