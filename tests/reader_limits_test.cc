// The weight and array readers under hostile or unusual input: size limits
// (tensor count, header length, rank, dimensions), duplicate names, errors
// that name the file, the tensor and the limit, and the memory-mapped paths
// (MappedSafetensors, ReadSafetensors, Module::LoadSafetensors) agreeing
// with the in-memory parser on any kind of path. docs/robustness.md maps
// each case to what Switchyard does.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "core/backend_registry.h"
#include "core/dtype.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/linear.h"
#include "models/npy.h"
#include "models/safetensors.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string LittleEndian64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

// A safetensors file with `header` (JSON) and `data`.
std::string FileWith(const std::string& header, const std::string& data = "") {
  return LittleEndian64(header.size()) + header + data;
}

BackendRegistry& CpuRegistry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    (void)r->Register("cpu", [] { return cpu::CreateCpuBackend(); });
    return r;
  }();
  return *registry;
}

TEST(SafetensorsLimitsTest, TooManyTensorsNamesTheLimit) {
  // 100,001 empty tensors: a small file asking for a lot of bookkeeping.
  std::string header = "{";
  for (int i = 0; i <= 100'000; ++i) {
    absl::StrAppend(&header, i == 0 ? "" : ",", "\"t", i,
                    R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]})");
  }
  header += "}";
  absl::StatusOr<SafetensorsFile> file =
      ParseSafetensors(FileWith(header), "many.safetensors");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(), HasSubstr("many.safetensors"));
  EXPECT_THAT(file.status().message(),
              HasSubstr("header lists more than the limit of 100000 tensors"));
}

TEST(SafetensorsLimitsTest, DeeplyNestedHeaderIsRejectedBeforeParsing) {
  // A valid header nests 3 levels; 100,000 would build a document as deep.
  const std::string header =
      R"({"w":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  absl::StatusOr<SafetensorsFile> file =
      ParseSafetensors(FileWith(header), "deep.safetensors");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(),
              HasSubstr("deep.safetensors: header nests JSON more than 64 "
                        "levels deep"));
}

TEST(SafetensorsLimitsTest, DuplicateTensorNameIsRejected) {
  // nlohmann keeps the last "w", another reader might keep the first:
  // refuse rather than load weights that depend on the reader.
  const std::string header =
      R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
      R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  absl::StatusOr<SafetensorsFile> file = ParseSafetensors(
      FileWith(header, std::string(8, '\0')), "dup.safetensors");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(),
              HasSubstr("dup.safetensors: tensor 'w' appears more than once"));
}

TEST(SafetensorsLimitsTest, DuplicateKeyInsideAnEntryIsRejected) {
  // {"dtype": "F32", ..., "dtype": "F16"}: which dtype is meant depends on
  // the reader; refused like a duplicate tensor name, naming the tensor.
  for (const std::string& header :
       {std::string(R"({"w":{"dtype":"F32","shape":[1],"dtype":"F16",)"
                    R"("data_offsets":[0,4]}})"),
        std::string(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],)"
                    R"("data_offsets":[0,4]}})"),
        std::string(R"({"__metadata__":{"a":"1","a":"2"},)"
                    R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})")}) {
    absl::StatusOr<SafetensorsFile> file = ParseSafetensors(
        FileWith(header, std::string(4, '\0')), "dupkey.safetensors");
    EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument) << header;
    EXPECT_THAT(file.status().message(), HasSubstr("more than once")) << header;
    EXPECT_THAT(file.status().message(), HasSubstr("dupkey.safetensors")) << header;
  }
  // The same key in two different entries is fine.
  absl::StatusOr<SafetensorsFile> ok = ParseSafetensors(
      FileWith(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
               R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
               std::string(8, '\0')),
      "two.safetensors");
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST(SafetensorsLimitsTest, ErrorsNameTheFileTheTensorAndTheLimit) {
  const std::string path = TempPath("rank9.safetensors");
  WriteFile(path, FileWith(R"({"deep":{"dtype":"F32",)"
                           R"("shape":[1,1,1,1,1,1,1,1,1],)"
                           R"("data_offsets":[0,4]}})",
                           std::string(4, '\0')));
  absl::StatusOr<SafetensorsFile> file = ReadSafetensors(path);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(), HasSubstr(path));
  EXPECT_THAT(file.status().message(), HasSubstr("tensor 'deep'"));
  EXPECT_THAT(file.status().message(), HasSubstr("at most 8 dimensions"));

  // A zero-element tensor whose other dimensions overflow int64 together.
  WriteFile(path, FileWith(R"({"e":{"dtype":"F32",)"
                           R"("shape":[0,4611686018427387904,4],)"
                           R"("data_offsets":[0,0]}})"));
  file = ReadSafetensors(path);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(), HasSubstr("tensor 'e'"));
}

SafetensorsFile SampleFile() {
  SafetensorsFile file;
  file.metadata["format"] = "pt";
  file.tensors["a"] = HostArray{Shape({2, 3}), {1, 2, 3, 4, 5, 6}};
  file.tensors["b"] = HostArray{Shape({0, 2}), {}};
  file.tensors["c"] = HostArray{Shape({}), {-7.5f}};
  file.tensors["d"] = HostArray::Of<int64_t>(Shape({2}), {3, -1});
  return file;
}

void ExpectSameTensors(const SafetensorsFile& a, const SafetensorsFile& b) {
  EXPECT_EQ(a.metadata, b.metadata);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, array] : a.tensors) {
    ASSERT_EQ(b.tensors.count(name), 1u) << name;
    EXPECT_EQ(b.tensors.at(name).shape, array.shape) << name;
    EXPECT_EQ(b.tensors.at(name).dtype, array.dtype) << name;
    EXPECT_EQ(b.tensors.at(name).bytes, array.bytes) << name;
  }
}

TEST(MappedSafetensorsTest, ViewsMatchTheParserAndSurviveRelease) {
  const std::string path = TempPath("mapped.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, SampleFile()).ok());
  absl::StatusOr<std::unique_ptr<MappedSafetensors>> mapped =
      MappedSafetensors::Open(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)->path(), path);
  EXPECT_EQ((*mapped)->metadata().at("format"), "pt");
  const HostArrayView& a = (*mapped)->tensors().at("a");
  EXPECT_EQ(a.shape, Shape({2, 3}));
  ASSERT_EQ(a.size_bytes, 6 * sizeof(float));
  std::vector<float> values(6);
  std::memcpy(values.data(), a.data, a.size_bytes);
  EXPECT_EQ(values, std::vector<float>({1, 2, 3, 4, 5, 6}));
  // Released pages come back from the file when read again.
  (*mapped)->Release(a.data, a.size_bytes);
  (*mapped)->Release((*mapped)->tensors().at("c").data, 4);
  std::memcpy(values.data(), a.data, a.size_bytes);
  EXPECT_EQ(values, std::vector<float>({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ((*mapped)->tensors().at("b").size_bytes, 0u);
  const HostArrayView& d = (*mapped)->tensors().at("d");
  EXPECT_EQ(d.dtype, DType::kInt64);
  ASSERT_EQ(d.size_bytes, 2 * sizeof(int64_t));
  int64_t longs[2];
  std::memcpy(longs, d.data, d.size_bytes);
  EXPECT_EQ(longs[0], 3);
  EXPECT_EQ(longs[1], -1);
}

TEST(MappedSafetensorsTest, ReadsFromAPipeAndRefusesADirectory) {
  // A FIFO cannot be mapped; it is read like a stream instead.
  const std::string fifo = TempPath("weights.fifo");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = SerializeSafetensors(SampleFile());
  std::thread writer([&] { WriteFile(fifo, bytes); });
  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(fifo);
  writer.join();
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameTensors(SampleFile(), *read);

  absl::StatusOr<SafetensorsFile> dir = ReadSafetensors(TempPath(""));
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(dir.status().message(), HasSubstr("is a directory"));

  // An empty file is a (truncated) file, not a mapping error.
  const std::string empty = TempPath("empty.safetensors");
  WriteFile(empty, "");
  EXPECT_THAT(ReadSafetensors(empty).status().message(),
              HasSubstr(absl::StrCat(empty, ": truncated safetensors file")));
}

TEST(MappedSafetensorsTest, ReadMatchesParseForAFileLargerThanOnePiece) {
  // 5M floats (20 MB) cross the 16 MiB copy pieces.
  SafetensorsFile file;
  std::vector<float> big(5'000'000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 977);
  file.tensors["big"] = HostArray{Shape({5, 1'000'000}), big};
  file.tensors["small"] = HostArray{Shape({3}), {1, 2, 3}};
  const std::string path = TempPath("big.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, file).ok());
  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameTensors(file, *read);
}

TEST(LoadSafetensorsTest, LoadsLikeLoadStateDictInPiecesAndAllOrNothing) {
  // Linear(2100, 2048): a 17.2 MB weight, more than one 16 MiB piece.
  nn::Sequential net(CpuRegistry());
  net.Add(std::make_unique<nn::Linear>(2100, 2048));
  SafetensorsFile file;
  std::vector<float> w(2048 * 2100), b(2048);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 101) / 7;
  for (size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<float>(i);
  file.tensors["0.weight"] = HostArray{Shape({2048, 2100}), w};
  file.tensors["0.bias"] = HostArray{Shape({2048}), b};
  const std::string path = TempPath("linear.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, file).ok());

  ASSERT_TRUE(net.LoadSafetensors(path).ok());
  absl::StatusOr<std::map<std::string, HostArray>> state = net.StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->at("0.weight").ToFloats(), w);
  EXPECT_EQ(state->at("0.bias").ToFloats(), b);

  // A file with a wrong shape changes nothing, and the error starts with
  // the path and lists the problem.
  SafetensorsFile wrong;
  wrong.tensors["0.weight"] = HostArray{Shape({1, 2}), {1, 2}};
  wrong.tensors["0.bias"] = HostArray{Shape({2048}), std::vector<float>(2048)};
  const std::string wrong_path = TempPath("wrong.safetensors");
  ASSERT_TRUE(WriteSafetensors(wrong_path, wrong).ok());
  absl::Status status = net.LoadSafetensors(wrong_path);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat(wrong_path,
                                     ": cannot load state dict into")));
  EXPECT_THAT(status.message(),
              HasSubstr("0.weight (expected [2048, 2100], file has [1, 2])"));
  state = net.StateDict();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->at("0.bias").ToFloats(), b);

  // A missing file is NotFound, naming it.
  status = net.LoadSafetensors(TempPath("missing.safetensors"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("missing.safetensors"));
}

TEST(LoadStateDictTest, ArrayWhoseValuesDoNotMatchItsShapeIsRejected) {
  nn::Sequential net(CpuRegistry());
  net.Add(std::make_unique<nn::Linear>(2, 1));
  std::map<std::string, HostArray> state;
  state["0.weight"] = HostArray{Shape({1, 2}), {1}};  // one value short
  state["0.bias"] = HostArray{Shape({1}), {0}};
  absl::Status status = net.LoadStateDict(state);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("'0.weight' has 1 values but shape [1, 2]"));
}

TEST(NpyLimitsTest, HeaderLongerThanNumpysLimitIsRejected) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  header.resize(10'001 - 1, ' ');
  header.push_back('\n');
  std::string npy("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) {
    npy.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  npy += header;
  npy.append(4, '\0');
  absl::StatusOr<HostArray> array = ParseNpy(npy, "long_header.npy");
  EXPECT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(array.status().message(),
              HasSubstr("long_header.npy: header length 10001 bytes exceeds "
                        "the limit of 10000 bytes"));
}

TEST(NpyLimitsTest, ReadNpyMapsTheFileAndNamesIt) {
  const std::string path = TempPath("x.npy");
  ASSERT_TRUE(WriteNpy(path, HostArray{Shape({2, 2}), {1, 2, 3, 4}}).ok());
  absl::StatusOr<HostArray> array = ReadNpy(path);
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_EQ(array->ToFloats(), std::vector<float>({1, 2, 3, 4}));
  // Truncated by one byte: the message names the file.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  WriteFile(path, bytes.substr(0, bytes.size() - 1));
  array = ReadNpy(path);
  EXPECT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(array.status().message(), HasSubstr(path));
  EXPECT_THAT(array.status().message(), HasSubstr("it is truncated"));
}

}  // namespace
}  // namespace switchyard
