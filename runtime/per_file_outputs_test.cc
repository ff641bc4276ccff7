#include "runtime/per_file_outputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/npy.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempFolder(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string folder =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/per_file_outputs_" + name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

TEST(ImageOutputNamesTest, StemsWhenTheyAreUnique) {
  EXPECT_THAT(ImageOutputNames({"photos/cat.jpg", "photos/dog.01.png", "photos/README"}),
              ElementsAre("cat", "dog.01", "README"));
}

TEST(ImageOutputNamesTest, SharedStemsTakeTheirBaseNames) {
  EXPECT_THAT(ImageOutputNames({"p/cat.jpg", "p/cat.png", "p/dog.jpg"}),
              ElementsAre("cat.jpg", "cat.png", "dog"));
}

TEST(ImageOutputNamesTest, SharedBaseNamesAreNumberedByTheirPlace) {
  EXPECT_THAT(ImageOutputNames({"a/cat.jpg", "b/cat.jpg", "b/dog.jpg"}),
              ElementsAre("1_cat.jpg", "2_cat.jpg", "dog"));
  // A file whose stem is another's numbered name climbs too: all unique.
  const std::vector<std::string> names =
      ImageOutputNames({"a/x.jpg", "b/x.jpg", "c/1_x.jpg.png"});
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 3u);
}

TEST(FilesOfBatchTest, BadFilesAndTheWrapAroundHoldNoFileOfTheirOwn) {
  auto bad_1 = [](int64_t file) { return file == 1; };
  // 5 files in batches of 3: positions 0..2, then 3..5 (5 wraps to file 0).
  EXPECT_THAT(FilesOfBatch(0, 3, 5, bad_1), ElementsAre(0, -1, 2));
  EXPECT_THAT(FilesOfBatch(1, 3, 5, bad_1), ElementsAre(3, 4, -1));
  // Past the first pass (--batches beyond one epoch): nothing new.
  EXPECT_THAT(FilesOfBatch(2, 3, 5, bad_1), ElementsAre(-1, -1, -1));
}

TEST(SampleOfTest, ASampleIsABatchOfOne) {
  const HostArray batch(Shape({3, 2}), {1, 2, 3, 4, 5, 6});
  const HostArray one = SampleOf(batch, 1);
  EXPECT_EQ(one.shape, Shape({1, 2}));
  EXPECT_THAT(std::vector<float>(one.values().begin(), one.values().end()),
              ElementsAre(3, 4));
  const HostArray ids = HostArray::Of<int64_t>(Shape({2}), std::vector<int64_t>{7, 9});
  EXPECT_EQ(SampleOf(ids, 1).shape, Shape({1}));
  EXPECT_EQ(SampleOf(ids, 1).ElementAsDouble(0), 9);
}

TEST(PrepareImageOutputFolderTest, CreatesTheFolderWithItsParents) {
  const std::string root = TempFolder("create");
  absl::StatusOr<std::string> folder = PrepareImageOutputFolder("x", root + "/a/b/");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(*folder, root + "/a/b");
  EXPECT_TRUE(std::filesystem::is_directory(root + "/a/b"));
  // Nothing left behind by the probe.
  EXPECT_TRUE(std::filesystem::is_empty(root + "/a/b"));
  // An existing folder without the '/' is a folder too.
  EXPECT_TRUE(PrepareImageOutputFolder("x", root + "/a").ok());
}

TEST(PrepareImageOutputFolderTest, RefusesAFileOrAName) {
  const std::string root = TempFolder("refuse");
  std::ofstream(root + "/y.npy") << "x";
  absl::Status file = PrepareImageOutputFolder("y.npy", root + "/y.npy").status();
  EXPECT_THAT(file.message(), HasSubstr("is a file"));
  EXPECT_THAT(file.message(), HasSubstr("give a folder (--output=DIR/)"));
  absl::Status name = PrepareImageOutputFolder("new.npy", root + "/new.npy").status();
  EXPECT_THAT(name.message(), HasSubstr("give a folder (--output=DIR/, created if missing)"));
  EXPECT_FALSE(std::filesystem::exists(root + "/new.npy"));
}

TEST(PrepareImageOutputFolderTest, RefusesAFolderItCannotWriteIn) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes in any folder";
  const std::string root = TempFolder("read_only");
  ASSERT_EQ(chmod(root.c_str(), 0555), 0);
  absl::Status status = PrepareImageOutputFolder("ro/", root + "/").status();
  chmod(root.c_str(), 0755);
  EXPECT_THAT(status.message(), HasSubstr("cannot write in the folder"));
  status = PrepareImageOutputFolder("ro/sub/", root + "/sub/").status();
  EXPECT_TRUE(status.ok()) << status;
}

TEST(PerFileOutputsTest, WritesEachOutputOfEachFile) {
  const std::string folder = TempFolder("write");
  absl::StatusOr<std::vector<std::string>> names =
      OutputFileNames(folder, 3, {"logits", "a/b", ""});
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("logits", "a_b", "output_2"));
  FileTransaction files;
  PerFileOutputs outputs({folder, *names, {}, 2}, files);
  const std::vector<HostArray> cat = {HostArray(Shape({1, 3}), {0, 5, 1}),
                                      HostArray(Shape({1}), {2}),
                                      HostArray::Of<int64_t>(Shape({1}), std::vector<int64_t>{4})};
  EXPECT_THAT(outputs.Top5Lines(1, "p/cat.jpg", cat),
              HasSubstr("image 1/2 p/cat.jpg logits top-5:  1 "));
  ASSERT_TRUE(outputs.Stage("cat", cat).ok());
  ASSERT_TRUE(outputs.Stage("dog", cat).ok());
  // Staged, not published, until the run commits.
  EXPECT_FALSE(std::filesystem::exists(folder + "/cat.logits.npy"));
  ASSERT_TRUE(files.Commit().ok());
  EXPECT_EQ(outputs.files_written(), 6);
  absl::StatusOr<HostArray> logits = ReadNpy(folder + "/cat.logits.npy");
  ASSERT_TRUE(logits.ok()) << logits.status();
  EXPECT_EQ(logits->shape, Shape({1, 3}));
  EXPECT_EQ(logits->ElementAsDouble(1), 5);
  absl::StatusOr<HostArray> ids = ReadNpy(folder + "/dog.output_2.npy");
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(ids->dtype, DType::kInt64);
  EXPECT_TRUE(std::filesystem::exists(folder + "/dog.a_b.npy"));
}

TEST(PerFileOutputsTest, WithoutAFolderNothingIsWritten) {
  FileTransaction files;
  PerFileOutputs outputs({"", {}, {"zero", "one"}, 1}, files);
  const std::vector<HostArray> cat = {HostArray(Shape({1, 2}), {0, 1})};
  EXPECT_EQ(outputs.Top5Lines(1, "p/cat.jpg", cat),
            "top-5 per image: class, softmax probability (raw output), label\n"
            "image 1/1 p/cat.jpg top-5:  1 0.7311 (1.0000) one  0 0.2689 (0.0000) zero\n");
  // The header comes once.
  EXPECT_EQ(outputs.Top5Lines(1, "p/cat.jpg", cat).rfind("image 1/1 p/cat.jpg top-5:", 0), 0u);
  ASSERT_TRUE(outputs.Stage("cat", cat).ok());
  EXPECT_EQ(outputs.files_written(), 0);
  EXPECT_EQ(outputs.images_seen(), 1);
  EXPECT_FALSE(outputs.writes_files());
}

TEST(PerFileOutputsWriterTest, WritesBehindTheCallerAndStopsAtAnError) {
  const std::string folder = TempFolder("writer");
  FileTransaction files;
  PerFileOutputs outputs({folder, {"y"}, {}, 4}, files);
  {
    PerFileOutputsWriter writer(outputs, /*capacity=*/1);
    for (const char* name : {"a", "b", "c"}) {
      ASSERT_TRUE(writer.Add(name, {HostArray(Shape({1, 2}), {1, 2})}).ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  EXPECT_EQ(outputs.files_written(), 3);
  ASSERT_TRUE(files.Commit().ok());
  EXPECT_TRUE(std::filesystem::exists(folder + "/c.y.npy"));

  // The same name twice: the second file's error, then every Add's.
  FileTransaction again;
  PerFileOutputs twice({folder, {"y"}, {}, 4}, again);
  PerFileOutputsWriter writer(twice, 1);
  absl::Status status;
  for (int i = 0; i < 50 && status.ok(); ++i) {
    status = writer.Add("same", {HostArray(Shape({1}), {1})});
  }
  const absl::Status finished = writer.Finish();
  EXPECT_FALSE(finished.ok());
  EXPECT_THAT(finished.message(), HasSubstr("same.y.npy"));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
