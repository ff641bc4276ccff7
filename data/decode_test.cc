// The decoders on tests/images (tools/make_test_images.py): every kind of
// file to RGB8 with the right size and pixels, and every bad file to the
// right error naming it. Pixel values are checked against PIL's decode
// through the torchvision references in transforms_test.cc.

#include "data/decode.h"

#include <string>

#include "absl/strings/match.h"
#include "data/image_files.h"
#include "data/jpeg_decoder.h"
#include "data/png_decoder.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace data {
namespace {

const char kDir[] = "tests/images/";

absl::StatusOr<Image> DecodeFile(const std::string& name,
                                 const DecodeLimits& limits = DecodeLimits()) {
  const std::string path = kDir + name;
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return DecodeImage(*bytes, path, limits);
}

struct Expected {
  const char* file;
  int width, height;
};

class DecodeGoodTest : public ::testing::TestWithParam<Expected> {};

TEST_P(DecodeGoodTest, SizeAndRgb) {
  const Expected e = GetParam();
  absl::StatusOr<Image> image = DecodeFile(e.file);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->width, e.width);
  EXPECT_EQ(image->height, e.height);
  EXPECT_EQ(image->pixels.size(), static_cast<size_t>(e.width) * e.height * 3);
  // Not all black: something was decoded.
  int64_t sum = 0;
  for (uint8_t v : image->pixels) sum += v;
  EXPECT_GT(sum, int64_t{e.width} * e.height * 3 * 20);
}

INSTANTIATE_TEST_SUITE_P(
    Files, DecodeGoodTest,
    ::testing::Values(Expected{"rgb_500x375.jpg", 500, 375},
                      Expected{"rgb_200x300.jpg", 200, 300},
                      Expected{"small_64x48.jpg", 64, 48},
                      Expected{"progressive_400x300.jpg", 400, 300},
                      Expected{"gray_320x240.jpg", 320, 240},
                      Expected{"cmyk_300x200.jpg", 300, 200},
                      Expected{"alpha_240x320.png", 240, 320},
                      Expected{"palette_256x256.png", 256, 256},
                      Expected{"rgb16_160x120.png", 160, 120},
                      Expected{"gray_100x80.png", 100, 80}));

TEST(DecodeTest, GrayscaleBecomesEqualChannels) {
  for (const char* name : {"gray_320x240.jpg", "gray_100x80.png"}) {
    absl::StatusOr<Image> image = DecodeFile(name);
    ASSERT_TRUE(image.ok()) << image.status();
    for (size_t i = 0; i < image->pixels.size(); i += 3) {
      ASSERT_EQ(image->pixels[i], image->pixels[i + 1]) << name << " at " << i / 3;
      ASSERT_EQ(image->pixels[i], image->pixels[i + 2]) << name << " at " << i / 3;
    }
  }
}

TEST(DecodeTest, SixteenBitPngKeepsTheHighByte) {
  // The script stores v * 257 + 77 for an 8-bit v: the high byte is v, and
  // PIL's 8-bit reading of the same file gives v.
  absl::StatusOr<Image> image = DecodeFile("rgb16_160x120.png");
  ASSERT_TRUE(image.ok()) << image.status();
  int distinct = 0;
  bool seen[256] = {false};
  for (uint8_t v : image->pixels) {
    if (!seen[v]) ++distinct;
    seen[v] = true;
  }
  EXPECT_GT(distinct, 100);
}

TEST(DecodeTest, SignatureNotExtensionDecides) {
  absl::StatusOr<std::string> png = ReadFileBytes("tests/images/gray_100x80.png");
  ASSERT_TRUE(png.ok());
  EXPECT_TRUE(LooksLikePng(*png));
  EXPECT_FALSE(LooksLikeJpeg(*png));
  absl::StatusOr<Image> image = DecodeImage(*png, "renamed.jpg");
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->width, 100);
}

void ExpectError(const std::string& name, absl::StatusCode code,
                 const std::string& substring, const DecodeLimits& limits = DecodeLimits()) {
  absl::StatusOr<Image> image = DecodeFile(name, limits);
  ASSERT_FALSE(image.ok()) << name << " decoded as " << image->width << "x"
                           << image->height;
  EXPECT_EQ(image.status().code(), code) << image.status();
  EXPECT_TRUE(absl::StrContains(image.status().message(), kDir + name)) << image.status();
  EXPECT_TRUE(absl::StrContains(image.status().message(), substring)) << image.status();
}

TEST(DecodeTest, BadFilesAreErrorsNamingThePath) {
  ExpectError("bad_empty.jpg", absl::StatusCode::kInvalidArgument, "empty (0 bytes)");
  ExpectError("bad_not_an_image.txt", absl::StatusCode::kInvalidArgument,
              "not a JPEG or PNG");
  ExpectError("bad_corrupt.jpg", absl::StatusCode::kInvalidArgument, "truncated");
}

TEST(DecodeTest, HugeHeadersAreRefusedBeforeAllocating) {
  ExpectError("bad_huge.png", absl::StatusCode::kResourceExhausted,
              "100000x100000 pixels, over the decoder's limit of 16384");
  ExpectError("bad_huge.jpg", absl::StatusCode::kResourceExhausted,
              "65000x65000 pixels, over the decoder's limit");
  DecodeLimits small;
  small.max_dimension = 100;
  ExpectError("rgb_500x375.jpg", absl::StatusCode::kResourceExhausted, "500x375", small);
  small = DecodeLimits();
  small.max_pixels = 1000;
  ExpectError("gray_100x80.png", absl::StatusCode::kResourceExhausted, "1000 pixels", small);
}

TEST(DecodeTest, TruncatedPngAndGarbageAfterTheSignature) {
  absl::StatusOr<std::string> png = ReadFileBytes("tests/images/palette_256x256.png");
  ASSERT_TRUE(png.ok());
  for (size_t keep : {size_t{8}, size_t{30}, png->size() / 2, png->size() - 13}) {
    absl::StatusOr<Image> image = DecodeImage(png->substr(0, keep), "cut.png");
    ASSERT_FALSE(image.ok()) << keep;
    EXPECT_EQ(image.status().code(), absl::StatusCode::kInvalidArgument) << image.status();
    EXPECT_TRUE(absl::StartsWith(image.status().message(), "cut.png: ")) << image.status();
  }
  std::string flipped = *png;
  flipped[40] ^= 0x5A;  // inside IHDR or the next chunk: a CRC error
  EXPECT_FALSE(DecodeImage(flipped, "crc.png").ok());
  absl::StatusOr<std::string> jpeg = ReadFileBytes("tests/images/rgb_200x300.jpg");
  ASSERT_TRUE(jpeg.ok());
  for (size_t keep : {size_t{3}, size_t{20}, size_t{200}}) {
    absl::StatusOr<Image> image = DecodeImage(jpeg->substr(0, keep), "cut.jpg");
    ASSERT_FALSE(image.ok()) << keep;
    EXPECT_EQ(image.status().code(), absl::StatusCode::kInvalidArgument) << image.status();
  }
}

TEST(ImageFilesTest, FolderGlobAndFile) {
  absl::StatusOr<std::vector<std::string>> all = ListImageFiles("tests/images");
  ASSERT_TRUE(all.ok()) << all.status();
  // Regular files only (not reference/), sorted.
  EXPECT_EQ(all->front(), "tests/images/alpha_240x320.png");
  EXPECT_EQ(all->size(), 15u);
  EXPECT_TRUE(std::is_sorted(all->begin(), all->end()));
  for (const std::string& f : *all) EXPECT_FALSE(absl::StrContains(f, "reference"));
  absl::StatusOr<std::vector<std::string>> jpegs = ListImageFiles("tests/images/rgb_*.jpg");
  ASSERT_TRUE(jpegs.ok()) << jpegs.status();
  EXPECT_EQ(*jpegs, (std::vector<std::string>{"tests/images/rgb_200x300.jpg",
                                              "tests/images/rgb_500x375.jpg"}));
  absl::StatusOr<std::vector<std::string>> none = ListImageFiles("tests/images/*.gif");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ListImageFiles("tests/nowhere").status().code(), absl::StatusCode::kNotFound);
}

TEST(ImageFilesTest, ReadLimit) {
  absl::StatusOr<std::string> bytes = ReadFileBytes("tests/images/rgb_200x300.jpg", 100);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bytes.status().message(), "over the limit of 100 bytes"));
  EXPECT_EQ(ReadFileBytes("tests/images/missing.jpg").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace data
}  // namespace switchyard
