// Resize, crop, flip and normalize: small hand-checked cases, and the whole
// eval pipeline against torchvision's (tests/images/reference, made by
// tools/make_test_images.py with torchvision 0.14: PIL decode -> uint8
// tensor -> Resize(antialias=False) -> CenterCrop -> /255 -> Normalize).

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "data/crop.h"
#include "data/flip.h"
#include "data/normalize.h"
#include "data/resize.h"
#include "data/sample_pipeline.h"
#include "data/sample_random.h"
#include "gtest/gtest.h"
#include "models/npy.h"

namespace switchyard {
namespace data {
namespace {

Image Gradient(int width, int height) {
  Image img(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      img.at(y, x)[0] = static_cast<uint8_t>(x * 10);
      img.at(y, x)[1] = static_cast<uint8_t>(y * 10);
      img.at(y, x)[2] = static_cast<uint8_t>(x + y);
    }
  }
  return img;
}

TEST(ResizeTest, SameSizeIsIdentity) {
  const Image img = Gradient(7, 5);
  const Image out = ResizeBilinear(img, 7, 5);
  EXPECT_EQ(out.pixels, img.pixels);
}

TEST(ResizeTest, HalfSizeAveragesPairs) {
  // Shrinking by 2: source x = 2o + 0.5, halfway between columns 2o and
  // 2o + 1 (no antialiasing beyond that).
  const Image img = Gradient(4, 2);
  const Image out = ResizeBilinear(img, 2, 1);
  EXPECT_EQ(out.at(0, 0)[0], 5);   // (0 + 10) / 2
  EXPECT_EQ(out.at(0, 1)[0], 25);  // (20 + 30) / 2
  EXPECT_EQ(out.at(0, 0)[1], 5);   // rows 0 and 1: (0 + 10) / 2
}

TEST(ResizeTest, UpsampleClampsAtTheEdges) {
  // 2 -> 4 columns: source x = (o + 0.5) / 2 - 0.5 = -0.25 (clamped to 0),
  // 0.25, 0.75, 1.25 (the last column repeats).
  Image img(2, 1);
  img.at(0, 0)[0] = 0;
  img.at(0, 1)[0] = 100;
  const Image out = ResizeBilinear(img, 4, 1);
  EXPECT_EQ(out.at(0, 0)[0], 0);
  EXPECT_EQ(out.at(0, 1)[0], 25);
  EXPECT_EQ(out.at(0, 2)[0], 75);
  EXPECT_EQ(out.at(0, 3)[0], 100);
}

TEST(ResizeTest, RoundsHalfToEven) {
  // 1 and 2 averaged: 1.5 -> 2; 2 and 3: 2.5 -> 2 (torch.round).
  Image img(4, 1);
  img.at(0, 0)[0] = 1;
  img.at(0, 1)[0] = 2;
  img.at(0, 2)[0] = 2;
  img.at(0, 3)[0] = 3;
  const Image out = ResizeBilinear(img, 2, 1);
  EXPECT_EQ(out.at(0, 0)[0], 2);
  EXPECT_EQ(out.at(0, 1)[0], 2);
}

TEST(ResizeTest, ShorterSideSizeTruncatesLikeTorchvision) {
  int w = 0, h = 0;
  ShorterSideSize(500, 375, 256, &w, &h);
  EXPECT_EQ(w, 341);  // int(256 * 500 / 375) = int(341.33)
  EXPECT_EQ(h, 256);
  ShorterSideSize(200, 300, 64, &w, &h);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 96);
  ShorterSideSize(100, 100, 32, &w, &h);
  EXPECT_EQ(w, 32);
  EXPECT_EQ(h, 32);
}

TEST(CropTest, CenterCropRoundsHalfToEvenAndPads) {
  // (341 - 224) / 2 = 58.5 -> 58 (Python's round); (256 - 224) / 2 = 16.
  CropBox box = CenterCropBox(341, 256, 224);
  EXPECT_EQ(box.left, 58);
  EXPECT_EQ(box.top, 16);
  // (227 - 224) / 2 = 1.5 -> 2.
  EXPECT_EQ(CenterCropBox(227, 224, 224).left, 2);
  // Smaller than the crop: padded by (6 - 3) // 2 = 1 on the left.
  box = CenterCropBox(3, 6, 6);
  EXPECT_EQ(box.left, -1);
  EXPECT_EQ(box.top, 0);
  const Image img = Gradient(3, 6);
  const Image out = Crop(img, box);
  EXPECT_EQ(out.width, 6);
  EXPECT_EQ(out.at(2, 0)[1], 0);   // padding
  EXPECT_EQ(out.at(2, 1)[1], 20);  // column 0 of row 2
  EXPECT_EQ(out.at(2, 3)[0], 20);  // column 2
  EXPECT_EQ(out.at(2, 4)[1], 0);   // padding
}

TEST(CropTest, RandomResizedCropIsInsideAndDeterministic) {
  std::set<std::pair<int, int>> sizes;
  for (uint64_t position = 0; position < 200; ++position) {
    SampleRandom a(7, position), b(7, position);
    const CropBox box = RandomResizedCropBox(500, 375, a);
    const CropBox again = RandomResizedCropBox(500, 375, b);
    EXPECT_EQ(box.top, again.top);
    EXPECT_EQ(box.left, again.left);
    EXPECT_EQ(box.width, again.width);
    ASSERT_GT(box.width, 0);
    ASSERT_GT(box.height, 0);
    ASSERT_GE(box.top, 0);
    ASSERT_GE(box.left, 0);
    ASSERT_LE(box.top + box.height, 375);
    ASSERT_LE(box.left + box.width, 500);
    const double share = static_cast<double>(box.width) * box.height / (500.0 * 375);
    EXPECT_GE(share, 0.07);
    const double ratio = static_cast<double>(box.width) / box.height;
    EXPECT_GE(ratio, 0.74);
    EXPECT_LE(ratio, 1.35);
    sizes.insert({box.width, box.height});
  }
  EXPECT_GT(sizes.size(), 150u);  // random, not constant
  // A 1000 x 10 strip: no try fits the ratio; the fallback is centered with
  // the widest allowed ratio, 4:3 -> 13 x 10.
  SampleRandom r(0, 0);
  const CropBox strip = RandomResizedCropBox(1000, 10, r);
  EXPECT_EQ(strip.width, 13);
  EXPECT_EQ(strip.height, 10);
  EXPECT_EQ(strip.left, (1000 - 13) / 2);
}

TEST(FlipTest, MirrorsRows) {
  Image img = Gradient(5, 2);
  FlipHorizontal(img);
  for (int x = 0; x < 5; ++x) EXPECT_EQ(img.at(1, x)[0], (4 - x) * 10);
  FlipHorizontal(img);
  EXPECT_EQ(img.pixels, Gradient(5, 2).pixels);
}

TEST(NormalizeTest, ChwWithImageNetStatistics) {
  Image img(2, 1);
  img.at(0, 0)[0] = 255;
  img.at(0, 1)[2] = 51;
  std::vector<float> out(6);
  ToNormalizedChw(img, Normalization(), absl::MakeSpan(out));
  EXPECT_FLOAT_EQ(out[0], (1.0f - 0.485f) / 0.229f);  // R of pixel 0
  EXPECT_FLOAT_EQ(out[1], -0.485f / 0.229f);          // R of pixel 1
  EXPECT_FLOAT_EQ(out[2], -0.456f / 0.224f);          // G plane
  EXPECT_FLOAT_EQ(out[5], (0.2f - 0.406f) / 0.225f);  // B of pixel 1
}

// One LSB of uint8 after normalization by the smallest std (0.224).
constexpr float kOneLevel = 1.0f / 255 / 0.224f;

struct Reference {
  const char* image;
  int resize, size;
};

class TorchvisionReferenceTest : public ::testing::TestWithParam<Reference> {};

TEST_P(TorchvisionReferenceTest, EvalPipelineMatches) {
  const Reference r = GetParam();
  const std::string stem = std::string(r.image).substr(0, std::string(r.image).rfind('.'));
  absl::StatusOr<HostArray> expected = ReadNpy(
      "tests/images/reference/" + stem + "_" + std::to_string(r.resize) + "_" +
      std::to_string(r.size) + ".npy");
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_EQ(expected->shape, Shape({3, r.size, r.size}));
  TransformOptions options;
  options.resize = r.resize;
  options.size = r.size;
  std::vector<float> out(3 * r.size * r.size);
  std::vector<StageSpan> spans;
  const absl::Status status = LoadSample(std::string("tests/images/") + r.image, 0, options,
                                         DecodeLimits(), absl::MakeSpan(out), &spans);
  ASSERT_TRUE(status.ok()) << status;
  // read, decode, resize, crop, normalize.
  ASSERT_EQ(spans.size(), 5u);
  EXPECT_EQ(spans[2].stage, LoaderStage::kResize);
  const absl::Span<const float> want = expected->values();
  float max_diff = 0;
  int off_by_one = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const float d = std::abs(out[i] - want[i]);
    max_diff = std::max(max_diff, d);
    if (d > 1e-5f) ++off_by_one;
  }
  // Same libjpeg-turbo and the same float arithmetic as PyTorch: at most
  // one uint8 level apart, and rarely (float rounding at .5 ties).
  EXPECT_LE(max_diff, kOneLevel * 1.01f) << r.image;
  EXPECT_LE(off_by_one, static_cast<int>(out.size() / 100)) << r.image;
  std::printf("%s: max |diff| %.6f, %d of %zu values differ\n", r.image, max_diff, off_by_one,
              out.size());
}

INSTANTIATE_TEST_SUITE_P(
    Images, TorchvisionReferenceTest,
    ::testing::Values(Reference{"rgb_500x375.jpg", 256, 224},
                      Reference{"rgb_200x300.jpg", 64, 56},
                      Reference{"small_64x48.jpg", 64, 56},
                      Reference{"progressive_400x300.jpg", 64, 56},
                      Reference{"gray_320x240.jpg", 64, 56},
                      Reference{"cmyk_300x200.jpg", 64, 56},
                      Reference{"alpha_240x320.png", 64, 56},
                      Reference{"palette_256x256.png", 64, 56},
                      Reference{"rgb16_160x120.png", 64, 56},
                      Reference{"gray_100x80.png", 64, 56}));

TEST(TrainPipelineTest, DeterministicPerPositionAndFlips) {
  TransformOptions options;
  options.mode = TransformOptions::Mode::kTrain;
  options.size = 32;
  options.seed = 3;
  const size_t n = 3 * 32 * 32;
  std::vector<float> a(n), b(n), c(n);
  std::vector<StageSpan> spans;
  const std::string path = "tests/images/rgb_500x375.jpg";
  ASSERT_TRUE(LoadSample(path, 5, options, DecodeLimits(), absl::MakeSpan(a), &spans).ok());
  // read, decode, crop, resize, flip, normalize.
  ASSERT_EQ(spans.size(), 6u);
  EXPECT_EQ(spans[2].stage, LoaderStage::kCrop);
  EXPECT_EQ(spans[4].stage, LoaderStage::kFlip);
  ASSERT_TRUE(LoadSample(path, 5, options, DecodeLimits(), absl::MakeSpan(b), nullptr).ok());
  EXPECT_EQ(a, b);
  ASSERT_TRUE(LoadSample(path, 6, options, DecodeLimits(), absl::MakeSpan(c), nullptr).ok());
  EXPECT_NE(a, c);
  // With the flip certain and then impossible, the outputs mirror each other.
  options.flip_probability = 1;
  ASSERT_TRUE(LoadSample(path, 9, options, DecodeLimits(), absl::MakeSpan(a), nullptr).ok());
  options.flip_probability = 0;
  ASSERT_TRUE(LoadSample(path, 9, options, DecodeLimits(), absl::MakeSpan(b), nullptr).ok());
  for (int ch = 0; ch < 3; ++ch) {
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        ASSERT_EQ(a[(ch * 32 + y) * 32 + x], b[(ch * 32 + y) * 32 + 31 - x]);
      }
    }
  }
}

}  // namespace
}  // namespace data
}  // namespace switchyard
