#include "models/output_files.h"

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/npy.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class OutputFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<BackendDevice*> cpu =
        BackendRegistry::Global().GetDevice(Device::Cpu());
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    cpu_ = *cpu;
    absl::StatusOr<Tensor> logits =
        Tensor::FromVector(Shape({2, 2}), {1.5f, -2, 3, 0.25f}, *cpu_);
    const int64_t labels[] = {7, -1, 1LL << 40};
    absl::StatusOr<Tensor> classes =
        Tensor::FromValues<int64_t>(Shape({3}), labels, *cpu_);
    ASSERT_TRUE(logits.ok() && classes.ok());
    outputs_ = {*logits, *classes};
  }

  std::string Dir(const std::string& name) {
    return ::testing::TempDir() + "/" + name;
  }

  BackendDevice* cpu_ = nullptr;
  std::vector<Tensor> outputs_;
};

TEST_F(OutputFilesTest, AFolderGetsOneNumberedFilePerOutput) {
  const std::string folder = Dir("outputs_folder/");
  absl::StatusOr<std::vector<std::string>> paths =
      OutputFilePaths({folder}, outputs_.size());
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_THAT(*paths, ElementsAre(Dir("outputs_folder/output_0.npy"),
                                  Dir("outputs_folder/output_1.npy")));
  ASSERT_TRUE(WriteOutputFiles(outputs_, *paths).ok());

  absl::StatusOr<HostArray> logits = ReadNpy((*paths)[0]);
  ASSERT_TRUE(logits.ok()) << logits.status();
  EXPECT_EQ(logits->shape, Shape({2, 2}));
  EXPECT_THAT(logits->values(), ElementsAre(1.5f, -2, 3, 0.25f));
  absl::StatusOr<HostArray> classes = ReadNpy((*paths)[1]);
  ASSERT_TRUE(classes.ok()) << classes.status();
  EXPECT_EQ(classes->dtype, DType::kInt64);
  EXPECT_EQ(classes->ElementAsDouble(2), static_cast<double>(1LL << 40));

  // An existing directory is a folder without the trailing '/'.
  paths = OutputFilePaths({Dir("outputs_folder")}, 1);
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_THAT(*paths, ElementsAre(Dir("outputs_folder/output_0.npy")));
}

TEST_F(OutputFilesTest, AFolderNamesFilesByTheModelsNamesEvenWithExtraNames) {
  // A staged NMS model's names also carry its row counts, after the outputs.
  absl::StatusOr<std::vector<std::string>> paths = OutputFilePaths(
      {Dir("named/")}, 1, {"selected_indices", "selected_indices.rows"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_THAT(*paths, ElementsAre(Dir("named/selected_indices.npy")));
}

TEST_F(OutputFilesTest, AListGetsOneFilePerOutputInOrder) {
  const std::vector<std::string> targets = {Dir("logits.npy"),
                                            Dir("classes.npy")};
  absl::StatusOr<std::vector<std::string>> paths =
      OutputFilePaths(targets, outputs_.size());
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, targets);
  ASSERT_TRUE(WriteOutputFiles(outputs_, *paths).ok());
  EXPECT_EQ(ReadNpy(targets[1])->dtype, DType::kInt64);
  EXPECT_EQ(ReadNpy(targets[0])->dtype, DType::kFloat32);
}

TEST_F(OutputFilesTest, OneOutputOneFileAsBefore) {
  absl::StatusOr<std::vector<std::string>> paths =
      OutputFilePaths({Dir("y.npy")}, 1);
  ASSERT_TRUE(paths.ok()) << paths.status();
  ASSERT_TRUE(WriteOutputFiles({outputs_[0]}, *paths).ok());
  EXPECT_THAT(ReadNpy(Dir("y.npy"))->values(), ElementsAre(1.5f, -2, 3, 0.25f));
}

TEST_F(OutputFilesTest, CountsThatDoNotMatchSayHowToFixThem) {
  absl::StatusOr<std::vector<std::string>> paths =
      OutputFilePaths({Dir("only.npy")}, 2);
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(paths.status().message(),
              HasSubstr("the model has 2 outputs but 1 file was given; give "
                        "one .npy file per output separated by commas, or a "
                        "folder ending in '/'"));
  paths = OutputFilePaths({Dir("a.npy"), Dir("b.npy")}, 1);
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(paths.status().message(),
              HasSubstr("the model has 1 output but 2 files were given"));
  paths = OutputFilePaths({Dir("a.npy"), ""}, 2);
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(paths.status().message(),
              HasSubstr("output path 2 of 2 is empty"));
}

TEST_F(OutputFilesTest, BFloat16IsWrittenAsFloat32) {
  const uint16_t bits[] = {0x3fc0, 0xc040};  // 1.5, -3
  absl::StatusOr<Tensor> half = Tensor::FromBytes(Shape({2}), DType::kBFloat16,
                                                  bits, sizeof(bits), *cpu_);
  ASSERT_TRUE(half.ok()) << half.status();
  ASSERT_TRUE(WriteOutputFiles({*half}, {Dir("bf16.npy")}).ok());
  absl::StatusOr<HostArray> read = ReadNpy(Dir("bf16.npy"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->dtype, DType::kFloat32);
  EXPECT_THAT(read->values(), ElementsAre(1.5f, -3));
}

TEST_F(OutputFilesTest, AFailedWriteNamesTheOutputAndThePath) {
  const std::string path = Dir("no_such_folder/y.npy");
  absl::Status status = WriteOutputFiles({outputs_[1]}, {path});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("output 0: "));
  EXPECT_THAT(status.message(), HasSubstr(path));
}

}  // namespace
}  // namespace switchyard
