// Runs a libFuzzer target's LLVMFuzzerTestOneInput on every file of the
// directories given on the command line: the seed corpus and the inputs of
// past findings, replayed by `bazel test //...` (and under --config=asan)
// with the same checks the fuzzer makes. A failed FUZZ_CHECK or a sanitizer
// report aborts the test; the last "replaying" line names the input.
//
//   fuzz_replay tests/fuzz/corpus/npy

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string>* directories = new std::vector<std::string>();

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* entry = readdir(d)) {
    const std::string path = dir + "/" + entry->d_name;
    struct stat info;
    if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      files.push_back(path);
    }
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

TEST(FuzzReplay, EveryInputPasses) {
  ASSERT_FALSE(directories->empty()) << "usage: replay DIR...";
  size_t replayed = 0;
  for (const std::string& dir : *directories) {
    const std::vector<std::string> files = FilesIn(dir);
    EXPECT_FALSE(files.empty()) << "no inputs in " << dir;
    for (const std::string& path : files) {
      std::ifstream in(path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(),
                   bytes.size());
      EXPECT_EQ(LLVMFuzzerTestOneInput(
                    reinterpret_cast<const uint8_t*>(bytes.data()),
                    bytes.size()),
                0)
          << path;
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) directories->push_back(argv[i]);
  return RUN_ALL_TESTS();
}
