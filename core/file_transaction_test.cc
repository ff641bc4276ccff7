#include "core/file_transaction.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace switchyard {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string base = dir != nullptr ? dir : "/tmp";
  static int n = 0;
  std::string path = base + "/ft" + std::to_string(getpid()) + "_" + std::to_string(n++);
  mkdir(path.c_str(), 0755);
  return path;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int CountEntries(const std::string& dir) {
  int n = 0;
  std::string cmd = "ls -A '" + dir + "' | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  if (fscanf(p, "%d", &n) != 1) n = -1;
  pclose(p);
  return n;
}

TEST(FileTransactionTest, CommitPublishesAllAndLeavesNoTemporaries) {
  const std::string dir = TempDir();
  FileTransaction files;
  ASSERT_TRUE(files.AddOutput(dir + "/a", "--a").ok());
  ASSERT_TRUE(files.AddOutput(dir + "/b", "--b").ok());
  ASSERT_TRUE(files.Stage(dir + "/a", "A").ok());
  ASSERT_TRUE(files.Stage(dir + "/b", "B").ok());
  EXPECT_EQ(access((dir + "/a").c_str(), F_OK), -1);  // not before Commit
  ASSERT_TRUE(files.Commit().ok());
  EXPECT_EQ(Read(dir + "/a"), "A");
  EXPECT_EQ(Read(dir + "/b"), "B");
  EXPECT_EQ(CountEntries(dir), 2);
}

TEST(FileTransactionTest, NoCommitLeavesNothing) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/old") << "old";
  {
    FileTransaction files;
    ASSERT_TRUE(files.AddOutput(dir + "/old", "--a").ok());
    ASSERT_TRUE(files.AddOutput(dir + "/new", "--b").ok());
    ASSERT_TRUE(files.Stage(dir + "/old", "X").ok());
  }
  EXPECT_EQ(Read(dir + "/old"), "old");
  EXPECT_EQ(CountEntries(dir), 1);
}

TEST(FileTransactionTest, UserTmpFileIsNotTouched) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/y.tmp") << "mine";
  ASSERT_TRUE(WriteFileAtomically(dir + "/y", "data").ok());
  EXPECT_EQ(Read(dir + "/y.tmp"), "mine");
  EXPECT_EQ(Read(dir + "/y"), "data");
}

TEST(FileTransactionTest, RefusesNonRegularDestinations) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/target") << "t";
  ASSERT_EQ(symlink((dir + "/target").c_str(), (dir + "/link").c_str()), 0);
  ASSERT_EQ(link((dir + "/target").c_str(), (dir + "/hard").c_str()), 0);
  mkdir((dir + "/sub").c_str(), 0755);
  FileTransaction files;
  absl::Status s = files.AddOutput(dir + "/link", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("symbolic link"), std::string::npos) << s;
  s = files.AddOutput(dir + "/hard", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  s = files.AddOutput(dir + "/sub", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  s = files.AddOutput("/dev/null", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("device"), std::string::npos) << s;
}

TEST(FileTransactionTest, RefusesInputsAndDuplicates) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/w") << "weights";
  FileTransaction files;
  files.AddInput(dir + "/w", "--weights");
  absl::Status s = files.AddOutput(dir + "/./w", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("--weights"), std::string::npos) << s;
  ASSERT_TRUE(files.AddOutput(dir + "/r", "--report").ok());
  s = files.AddOutput(dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/r", "--output");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(Read(dir + "/w"), "weights");
}

TEST(FileTransactionTest, MissingFolderIsNotFoundNamingThePath) {
  absl::Status s = WriteFileAtomically("/nonexistent-dir/x.json", "{}", "--report");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("/nonexistent-dir/x.json"), std::string::npos) << s;
  EXPECT_NE(s.message().find("--report"), std::string::npos) << s;
}

TEST(FileTransactionTest, FullDiskIsResourceExhausted) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  // /dev/full refuses as a destination (a device) before any write.
  absl::Status s = WriteFileAtomically("/dev/full", "x", "--json");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
}

TEST(FileTransactionTest, KeepsTheModeOfTheReplacedFile) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/m") << "old";
  chmod((dir + "/m").c_str(), 0600);
  ASSERT_TRUE(WriteFileAtomically(dir + "/m", "new").ok());
  struct stat info;
  ASSERT_EQ(stat((dir + "/m").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(Read(dir + "/m"), "new");
}

}  // namespace
}  // namespace switchyard
