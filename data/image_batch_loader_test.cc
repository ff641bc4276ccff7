// Batches from tests/images: bad files skipped (each reported once, every
// slot counted) or failing the batch; the same batch from any thread; every
// file bad -> an error, not a loop.

#include "data/image_batch_loader.h"

#include <thread>

#include "absl/strings/match.h"
#include "data/image_files.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace data {
namespace {

ImageBatchLoader::Options Small(BadImagePolicy policy) {
  ImageBatchLoader::Options options;
  options.transform.size = 16;
  options.transform.resize = 20;
  options.bad_images = policy;
  options.report_bad_images = false;
  return options;
}

std::vector<std::string> TestFiles() {
  absl::StatusOr<std::vector<std::string>> files = ListImageFiles("tests/images");
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : std::vector<std::string>();
}

TEST(ImageBatchLoaderTest, SkipsEachBadFileAndFillsItsSlot) {
  const std::vector<std::string> files = TestFiles();
  ASSERT_EQ(files.size(), 15u);  // 10 images, 5 bad files
  ImageBatchLoader loader(files, 4, Small(BadImagePolicy::kSkip));
  EXPECT_EQ(loader.batches_per_epoch(), 4);
  std::vector<float> batch(loader.batch_elements());
  std::vector<StageSpan> spans;
  for (int b = 0; b < 4; ++b) {
    ASSERT_TRUE(loader.LoadBatch(b, absl::MakeSpan(batch), &spans).ok()) << b;
  }
  const std::vector<ImageBatchLoader::BadImage> bad = loader.bad_images();
  ASSERT_EQ(bad.size(), 5u);
  std::set<std::string> paths;
  for (const auto& b : bad) {
    EXPECT_TRUE(absl::StartsWith(b.path, "tests/images/bad_")) << b.path;
    EXPECT_TRUE(absl::StrContains(b.error, b.path)) << b.error;
    paths.insert(b.path);
  }
  EXPECT_EQ(paths.size(), 5u);
  // bad_* are files 0..4 of the sorted list after alpha_*: positions 1-5
  // meet them; slot 1 tries all five, slot 2 finds them known bad, ...
  EXPECT_GE(loader.skipped(), 5);
  // 16 samples batched; every sample has a batch span.
  int batched = 0;
  for (const StageSpan& s : spans) batched += s.stage == LoaderStage::kBatch;
  EXPECT_EQ(batched, 16);
}

TEST(ImageBatchLoaderTest, FailPolicyReturnsTheFilesError) {
  ImageBatchLoader loader(TestFiles(), 4, Small(BadImagePolicy::kFail));
  std::vector<float> batch(loader.batch_elements());
  const absl::Status status = loader.LoadBatch(0, absl::MakeSpan(batch), nullptr);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "tests/images/bad_")) << status;
}

TEST(ImageBatchLoaderTest, SameBatchFromAnyThread) {
  ImageBatchLoader::Options options = Small(BadImagePolicy::kSkip);
  options.transform.mode = TransformOptions::Mode::kTrain;
  options.transform.seed = 11;
  ImageBatchLoader loader(TestFiles(), 3, options);
  std::vector<float> a(loader.batch_elements()), b(loader.batch_elements());
  ASSERT_TRUE(loader.LoadBatch(2, absl::MakeSpan(a), nullptr).ok());
  std::thread t([&] { ASSERT_TRUE(loader.LoadBatch(2, absl::MakeSpan(b), nullptr).ok()); });
  t.join();
  EXPECT_EQ(a, b);
  // Concurrent batches, as loader threads do.
  std::vector<std::vector<float>> out(6, std::vector<float>(loader.batch_elements()));
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      EXPECT_TRUE(loader.LoadBatch(i, absl::MakeSpan(out[i]), nullptr).ok());
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(out[2], a);
}

TEST(ImageBatchLoaderTest, EveryFileBadIsAnError) {
  ImageBatchLoader loader({"tests/images/bad_empty.jpg", "tests/images/bad_huge.png"}, 2,
                          Small(BadImagePolicy::kSkip));
  std::vector<float> batch(loader.batch_elements());
  const absl::Status status = loader.LoadBatch(0, absl::MakeSpan(batch), nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "none of the 2 files")) << status;
}

TEST(ImageBatchLoaderTest, WrongBufferSize) {
  ImageBatchLoader loader(TestFiles(), 2, Small(BadImagePolicy::kSkip));
  std::vector<float> batch(10);
  EXPECT_EQ(loader.LoadBatch(0, absl::MakeSpan(batch), nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace data
}  // namespace switchyard
