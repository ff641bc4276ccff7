#include "runtime/image_input.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;

// A folder of five files (listing does not decode them).
std::string FolderOfFiles() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string folder = std::string(tmp != nullptr ? tmp : "/tmp") + "/image_input_test";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  for (const char* name : {"a.jpg", "b.jpg", "c.png", "d.jpg", "e.jpg"}) {
    std::ofstream(folder + "/" + name) << "x";
  }
  return folder;
}

TEST(ImageInputTest, EvalDefaultsAndTheBatchShape) {
  ImageInputOptions options;
  options.source = FolderOfFiles();
  absl::StatusOr<ImageInput> input = PrepareImageInput(options);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->files.size(), 5u);
  EXPECT_EQ(input->total_files, 5);
  EXPECT_EQ(input->description, "eval: resize 256, center crop 224");
  EXPECT_EQ(input->options.bad_images, data::BadImagePolicy::kSkip);
  EXPECT_THAT(input->output_names, ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_EQ(ImageBatchShape(*input, 8), Shape({8, 3, 224, 224}));
}

TEST(ImageInputTest, SharesAreContiguousBlocksInIndexOrder) {
  ImageInputOptions options;
  options.source = FolderOfFiles();
  options.shard_count = 2;
  options.shard_index = 1;
  absl::StatusOr<ImageInput> input = PrepareImageInput(options);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->first_index, 2);
  EXPECT_EQ(input->total_files, 5);
  ASSERT_EQ(input->files.size(), 3u);
  EXPECT_THAT(input->files[0], EndsWith("/c.png"));
  EXPECT_THAT(input->output_names, ElementsAre("c", "d", "e"));
  options.shard_count = 6;
  options.shard_index = 0;
  EXPECT_THAT(PrepareImageInput(options).status().message(),
              HasSubstr("5 image file(s) in"));
}

TEST(ImageInputTest, RefusesWhatCannotWork) {
  ImageInputOptions options;
  options.source = FolderOfFiles();
  options.resize = 100;
  EXPECT_THAT(PrepareImageInput(options).status().message(),
              HasSubstr("--resize=100 is smaller than --image-size=224"));
  options.augment = "train";
  options.resize_given = true;
  EXPECT_THAT(PrepareImageInput(options).status().message(),
              HasSubstr("--resize applies to --augment=eval"));
  options = ImageInputOptions();
  options.source = FolderOfFiles();
  options.augment = "random";
  EXPECT_TRUE(absl::IsInvalidArgument(PrepareImageInput(options).status()));
  options.augment = "eval";
  options.bad_images = "ignore";
  EXPECT_THAT(PrepareImageInput(options).status().message(),
              HasSubstr("--bad-images must be skip or fail"));
  options.bad_images = "skip";
  options.source += "/missing/*.jpg";
  EXPECT_THAT(PrepareImageInput(options).status().message(), HasSubstr("--images: "));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
