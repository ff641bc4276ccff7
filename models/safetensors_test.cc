#include "models/safetensors.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string LittleEndian64(uint64_t value) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>(value >> (8 * i)));
  return bytes;
}

std::string FloatBytes(std::initializer_list<float> values) {
  std::string bytes;
  for (float v : values)
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(v));
  return bytes;
}

// A file built by hand: length prefix, `header` exactly as given (no
// padding), then `data`.
std::string FileWith(const std::string& header, const std::string& data = "") {
  return LittleEndian64(header.size()) + header + data;
}

// A header with one F32 tensor "w" (or the given dtype/shape/offsets text).
std::string OneTensor(const std::string& dtype, const std::string& shape,
                      const std::string& offsets) {
  return absl::StrCat(R"({"w":{"dtype":)", dtype, R"(,"shape":)", shape,
                      R"(,"data_offsets":)", offsets, "}}");
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + name;
}

void ExpectSameArray(const HostArray& actual, const HostArray& expected) {
  EXPECT_EQ(actual.shape, expected.shape);
  EXPECT_EQ(actual.dtype, expected.dtype);
  EXPECT_EQ(actual.bytes, expected.bytes);
}

std::vector<char> Bytes(std::initializer_list<uint16_t> bits) {
  std::vector<char> bytes;
  for (uint16_t b : bits) {
    bytes.push_back(static_cast<char>(b & 0xff));
    bytes.push_back(static_cast<char>(b >> 8));
  }
  return bytes;
}

TEST(SafetensorsTest, RoundTripsThroughFile) {
  SafetensorsFile file;
  file.tensors["features.0.weight"] = {Shape({2, 3}), {1, 2, 3, 4, 5, -6.5f}};
  file.tensors["scalar"] = {Shape(), {3.25f}};
  file.tensors["empty"] = {Shape({0, 4}), {}};
  file.metadata = {{"format", "pt"}, {"note", "caf\xc3\xa9"}};
  const std::string path = TempPath("round_trip.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, file).ok());

  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->metadata, file.metadata);
  ASSERT_EQ(read->tensors.size(), 3u);
  for (const auto& [name, array] : file.tensors) {
    SCOPED_TRACE(name);
    ASSERT_EQ(read->tensors.count(name), 1u);
    ExpectSameArray(read->tensors.at(name), array);
  }
}

TEST(SafetensorsTest, RoundTripsEveryDType) {
  const bool flags[] = {true, false};
  SafetensorsFile file;
  file.tensors["f32"] = HostArray(Shape({2}), {1.5f, -2});
  file.tensors["f16"] =
      HostArray(Shape({3}), DType::kFloat16, Bytes({0x3c00, 0x8001, 0x7c00}));
  file.tensors["bf16"] =
      HostArray(Shape({1, 2}), DType::kBFloat16, Bytes({0x3f80, 0xff80}));
  file.tensors["f64"] = HostArray::Of<double>(Shape({2}), {1e-310, -1e300});
  file.tensors["i64"] = HostArray::Of<int64_t>(Shape(), {-9007199254740993});
  file.tensors["i32"] = HostArray::Of<int32_t>(Shape({2}), {-7, 2147483647});
  file.tensors["i8"] = HostArray::Of<int8_t>(Shape({2}), {-128, 127});
  file.tensors["u8"] = HostArray::Of<uint8_t>(Shape({1}), {255});
  file.tensors["bool"] = HostArray::Of<bool>(Shape({2}), flags);
  file.tensors["empty_i64"] = HostArray::Of<int64_t>(Shape({0}), {});
  file.tensors["i16"] = HostArray::Of<int16_t>(Shape({2}), {-32768, 7});
  file.tensors["u16"] = HostArray::Of<uint16_t>(Shape({1}), {65535});
  file.tensors["f8_e4m3"] = HostArray(Shape({2}), DType::kFloat8E4M3FN, {'\x38', '\x7e'});
  file.tensors["f8_e5m2"] = HostArray(Shape({1}), DType::kFloat8E5M2, {'\x7c'});
  const std::string path = TempPath("every_dtype.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, file).ok());

  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->tensors.size(), file.tensors.size());
  for (const auto& [name, array] : file.tensors) {
    SCOPED_TRACE(name);
    ASSERT_EQ(read->tensors.count(name), 1u);
    ExpectSameArray(read->tensors.at(name), array);
  }
  EXPECT_EQ(read->tensors.at("bf16").ToFloats(),
            std::vector<float>({1, -std::numeric_limits<float>::infinity()}));
  EXPECT_EQ(read->tensors.at("i64").ElementAsDouble(0), -9007199254740992.0);
  EXPECT_EQ(read->tensors.at("f8_e4m3").ToFloats(), std::vector<float>({1, 448}));
  EXPECT_EQ(read->tensors.at("f8_e5m2").ToFloats(),
            std::vector<float>({std::numeric_limits<float>::infinity()}));
}

TEST(SafetensorsTest, WriteRefusesDTypesTheFormatLacks) {
  SafetensorsFile file;
  file.tensors["w"] = HostArray(Shape({2}), DType::kInt4, {'\x07', '\xf8'});
  const absl::Status status = WriteSafetensors(TempPath("int4.safetensors"), file);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("safetensors has no int4 dtype"));
}

TEST(SafetensorsTest, WritesTheFormatsDTypeNames) {
  const std::vector<std::pair<DType, std::string>> expected = {
      {DType::kFloat32, "F32"},   {DType::kFloat16, "F16"},
      {DType::kBFloat16, "BF16"}, {DType::kFloat64, "F64"},
      {DType::kInt64, "I64"},     {DType::kInt32, "I32"},
      {DType::kInt8, "I8"},       {DType::kUInt8, "U8"},
      {DType::kBool, "BOOL"},     {DType::kInt16, "I16"},
      {DType::kUInt16, "U16"},    {DType::kFloat8E4M3FN, "F8_E4M3"},
      {DType::kFloat8E5M2, "F8_E5M2"},
  };
  for (const auto& [dtype, name] : expected) {
    SCOPED_TRACE(name);
    SafetensorsFile file;
    file.tensors["t"] =
        HostArray(Shape({2}), dtype, std::vector<char>(2 * DTypeSize(dtype)));
    EXPECT_THAT(SerializeSafetensors(file),
                HasSubstr(absl::StrCat(R"({"t":{"dtype":")", name,
                                       R"(","shape":[2],"data_offsets":[0,)",
                                       2 * DTypeSize(dtype), "]}}")));
  }
}

TEST(SafetensorsTest, ReadsATorchvisionBatchNormStateDict) {
  // What torch's save_file writes for nn.BatchNorm2d(2): four F32 tensors
  // and num_batches_tracked, an I64 scalar.
  const std::string header =
      R"({"bn.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("bn.num_batches_tracked":{"dtype":"I64","shape":[],)"
      R"("data_offsets":[8,16]},)"
      R"("bn.running_mean":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},)"
      R"("bn.running_var":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},)"
      R"("bn.weight":{"dtype":"F32","shape":[2],"data_offsets":[32,40]}})";
  const int64_t batches = 1234;
  std::string data = FloatBytes({0.5f, -0.5f});
  data.append(reinterpret_cast<const char*>(&batches), sizeof(batches));
  data += FloatBytes({1, 2, 3, 4, 1, 1});
  absl::StatusOr<SafetensorsFile> parsed =
      ParseSafetensors(FileWith(header, data), "bn.safetensors");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const HostArray& tracked = parsed->tensors.at("bn.num_batches_tracked");
  EXPECT_EQ(tracked.dtype, DType::kInt64);
  EXPECT_EQ(tracked.shape, Shape());
  EXPECT_EQ(tracked.ElementAsDouble(0), 1234);
  EXPECT_THAT(parsed->tensors.at("bn.running_var").values(), ElementsAre(3, 4));
}

TEST(SafetensorsTest, FileWithoutTensorsRoundTrips) {
  const std::string bytes = SerializeSafetensors(SafetensorsFile{});
  EXPECT_EQ(bytes, LittleEndian64(8) + "{}      ");
  absl::StatusOr<SafetensorsFile> parsed = ParseSafetensors(bytes, "empty");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->tensors.empty());
  EXPECT_TRUE(parsed->metadata.empty());
}

TEST(SafetensorsTest, SerializesToTheReferenceLayout) {
  SafetensorsFile file;
  file.tensors["w"] = {Shape({2}), {1.0f, -2.0f}};
  file.metadata["format"] = "pt";
  // 85 bytes of JSON padded with 3 spaces to 88 (0x58), then 1.0f and -2.0f.
  const std::string expected =
      std::string("\x58\0\0\0\0\0\0\0", 8) +
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],)"
      R"("data_offsets":[0,8]}})" +
      "   " + std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
  EXPECT_EQ(SerializeSafetensors(file), expected);
}

TEST(SafetensorsTest, PacksTensorsInNameOrder) {
  SafetensorsFile file;
  file.tensors["b"] = {Shape({1}), {2}};
  file.tensors["a"] = {Shape({2}), {0, 1}};
  const std::string bytes = SerializeSafetensors(file);
  EXPECT_THAT(bytes, HasSubstr(R"("a":{"dtype":"F32","shape":[2],)"
                               R"("data_offsets":[0,8]},"b":{"dtype":"F32",)"
                               R"("shape":[1],"data_offsets":[8,12]})"));
  EXPECT_EQ(bytes.substr(bytes.size() - 12), FloatBytes({0, 1, 2}));
}

TEST(SafetensorsTest, ParsesUnpaddedHeaderAndOutOfOrderOffsets) {
  // Entries listed against offset order, an odd-length header (so the data
  // is unaligned), and an unknown field that newer writers might add.
  const std::string header =
      R"({"late":{"dtype":"F32","shape":[1],"data_offsets":[8,12],"x":0},)"
      R"("early":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}} )";
  absl::StatusOr<SafetensorsFile> parsed =
      ParseSafetensors(FileWith(header, FloatBytes({1, 2, 3})), "in.st");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameArray(parsed->tensors.at("early"), {Shape({1, 2}), {1, 2}});
  ExpectSameArray(parsed->tensors.at("late"), {Shape({1}), {3}});
}

TEST(SafetensorsTest, AcceptsEmptyTensorsAnywhereInTheTiling) {
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
      R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
      R"("c":{"dtype":"F32","shape":[2,0],"data_offsets":[4,4]}})";
  absl::StatusOr<SafetensorsFile> parsed =
      ParseSafetensors(FileWith(header, FloatBytes({7})), "in.st");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->tensors.size(), 3u);
}

TEST(SafetensorsTest, ReadingMissingFileIsNotFound) {
  const std::string path = TempPath("does_not_exist.safetensors");
  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr(path));
}

TEST(SafetensorsTest, WritingIntoMissingDirectoryNamesThePath) {
  const std::string path = TempPath("no_such_dir/w.safetensors");
  absl::Status status = WriteSafetensors(path, SafetensorsFile{});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("No such file"));
}

TEST(SafetensorsTest, FailedWriteKeepsTheExistingFile) {
  const std::string path = TempPath("keep.safetensors");
  SafetensorsFile original;
  original.tensors["w"] = {Shape({2}), {1, 2}};
  ASSERT_TRUE(WriteSafetensors(path, original).ok());

  SafetensorsFile replacement;
  replacement.tensors["w"] = {Shape({3}), {4, 5, 6}};
  // A second hard link to the file makes the write refuse (replacing the
  // file would split the links); the error names the user's path, and a
  // user's own PATH.tmp is never touched.
  ASSERT_EQ(mkdir((path + ".tmp").c_str(), 0755), 0);
  ASSERT_EQ(link(path.c_str(), (path + ".link").c_str()), 0);
  absl::Status status = WriteSafetensors(path, replacement);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("hard links"));
  unlink((path + ".link").c_str());
  ASSERT_TRUE(WriteSafetensors(path, replacement).ok());
  struct stat tmp_info;
  EXPECT_EQ(stat((path + ".tmp").c_str(), &tmp_info), 0);
  EXPECT_TRUE(S_ISDIR(tmp_info.st_mode));
  rmdir((path + ".tmp").c_str());
  ASSERT_TRUE(WriteSafetensors(path, original).ok());

  // So does an invalid file, before anything touches the disk.
  replacement.tensors["w"].bytes.resize(8);
  EXPECT_EQ(WriteSafetensors(path, replacement).code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameArray(read->tensors.at("w"), original.tensors.at("w"));
}

TEST(SafetensorsTest, WriteRejectsFilesItCouldNotReadBack) {
  const std::string path = TempPath("invalid.safetensors");
  struct Case {
    const char* what;
    SafetensorsFile file;
    const char* message;
  };
  std::vector<Case> cases(4);
  cases[0] = {"values/shape mismatch", {}, "has 5 values but shape [2, 3]"};
  cases[0].file.tensors["w"] = {Shape({2, 3}), {1, 2, 3, 4, 5}};
  cases[1] = {"reserved name", {}, "reserved"};
  cases[1].file.tensors["__metadata__"] = {Shape({1}), {1}};
  cases[2] = {"rank 9", {}, "rank 9"};
  cases[2].file.tensors["w"] = {Shape({1, 1, 1, 1, 1, 1, 1, 1, 1}), {1}};
  cases[3] = {"bad UTF-8", {}, "not valid UTF-8"};
  cases[3].file.tensors["\xff"] = {Shape({1}), {1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    absl::Status status = WriteSafetensors(path, c.file);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
    EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  }
}

// Every malformed input, each with the error code and a message fragment.
struct BadInput {
  std::string name;
  std::string bytes;
  absl::StatusCode code;
  std::string message;
};

std::vector<BadInput> BadInputs() {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  constexpr auto kUnimplemented = absl::StatusCode::kUnimplemented;
  const std::string one = FloatBytes({1});
  const std::string two = FloatBytes({1, 2});
  const std::string three = FloatBytes({1, 2, 3});
  return {
      {"ShorterThanLengthPrefix", "\x01\x02\x03", kInvalid,
       "truncated safetensors file: it has 3 bytes"},
      {"EmptyFile", "", kInvalid, "truncated"},
      {"HeaderLengthPastEnd", LittleEndian64(100) + "{}", kInvalid,
       "header length 100 bytes runs past the end of the file: only 2 bytes"},
      {"HeaderLengthOverLimit", LittleEndian64(100000001) + "{}", kInvalid,
       "header length 100000001 bytes exceeds the limit of 100000000"},
      {"HeaderLengthHuge", LittleEndian64(UINT64_MAX) + "{}", kInvalid,
       "header length 18446744073709551615 bytes exceeds"},
      {"EmptyHeader", FileWith(""), kInvalid, "header is not valid JSON"},
      {"InvalidJson", FileWith(R"({"w": )"), kInvalid,
       "header is not valid JSON ([json.exception.parse_error"},
      {"InvalidUtf8InJson", FileWith("{\"\xff\":1}"), kInvalid,
       "not valid JSON"},
      {"HeaderNotObject", FileWith("[1, 2]"), kInvalid,
       "header is a JSON array; expected an object"},
      {"EntryNotObject", FileWith(R"({"w":3})"), kInvalid,
       "tensor 'w': header entry is a JSON number"},
      {"MissingDtype",
       FileWith(R"({"w":{"shape":[],"data_offsets":[0,4]}})", one), kInvalid,
       "tensor 'w': header entry has no \"dtype\""},
      {"MissingShape",
       FileWith(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", one), kInvalid,
       "tensor 'w': header entry has no \"shape\""},
      {"MissingDataOffsets", FileWith(R"({"w":{"dtype":"F32","shape":[]}})"),
       kInvalid, "tensor 'w': header entry has no \"data_offsets\""},
      {"DtypeNotString", FileWith(OneTensor("32", "[1]", "[0,4]"), one),
       kInvalid, "\"dtype\" is a JSON number"},
      {"ShapeNotArray", FileWith(OneTensor(R"("F32")", R"("1")", "[0,4]"), one),
       kInvalid, "\"shape\" is a JSON string"},
      {"DimNotNumber",
       FileWith(OneTensor(R"("F32")", R"([1,"1"])", "[0,4]"), one), kInvalid,
       "\"shape\" element 1 is a JSON string"},
      {"NegativeDim", FileWith(OneTensor(R"("F32")", "[-1]", "[0,4]"), one),
       kInvalid, "\"shape\" element 0 is -1; it must be a non-negative"},
      {"NonIntegerDim", FileWith(OneTensor(R"("F32")", "[1.5]", "[0,4]"), one),
       kInvalid, "\"shape\" element 0 is 1.5, not an integer"},
      {"DimPastUint64", FileWith(OneTensor(R"("F32")", "[1e30]", "[0,4]"), one),
       kInvalid, "not an integer (or too large for 64 bits)"},
      {"DimPastInt64",
       FileWith(OneTensor(R"("F32")", "[9223372036854775808]", "[0,4]"), one),
       kInvalid, "dimension 0 (9223372036854775808) is too large"},
      {"DimsOverflowElementCount",
       FileWith(OneTensor(R"("F32")", "[4294967296,4294967296]", "[0,4]"), one),
       kInvalid, "has too many elements"},
      {"DimsOverflowByteCount",
       FileWith(OneTensor(R"("F32")", "[2305843009213693952]", "[0,4]"), one),
       kInvalid, "is too large in bytes"},
      {"RankOverEight",
       FileWith(OneTensor(R"("F32")", "[1,1,1,1,1,1,1,1,1]", "[0,4]"), one),
       kInvalid, "tensor 'w': shape has rank 9; at most 8"},
      {"OffsetsNotArray", FileWith(OneTensor(R"("F32")", "[1]", "4"), one),
       kInvalid,
       "must be an array [begin, end] of two integers; got a JSON "
       "number"},
      {"OffsetsNotPair", FileWith(OneTensor(R"("F32")", "[1]", "[4]"), one),
       kInvalid, "got a JSON array of 1 elements"},
      {"NegativeOffset", FileWith(OneTensor(R"("F32")", "[1]", "[-4,0]"), one),
       kInvalid, "\"data_offsets\" begin is -4"},
      {"OffsetNotInteger",
       FileWith(OneTensor(R"("F32")", "[1]", R"([0,"4"])"), one), kInvalid,
       "\"data_offsets\" end is a JSON string"},
      {"UnknownDtype", FileWith(OneTensor(R"("F33")", "[1]", "[0,4]"), one),
       kInvalid, "tensor 'w': unknown dtype \"F33\"; safetensors dtypes are"},
      {"LowercaseDtype", FileWith(OneTensor(R"("f32")", "[1]", "[0,4]"), one),
       kInvalid, "unknown dtype \"f32\""},
      {"UInt32", FileWith(OneTensor(R"("U32")", "[1]", "[0,4]"), one),
       kUnimplemented,
       "tensor 'w': dtype U32 is not supported; the supported ones are "
       "F32, F16, BF16, F64, I64, I32, I8, U8, BOOL, I16, U16, F8_E4M3, F8_E5M2. "
       "Convert the tensor before saving (PyTorch: `t.float()`"},
      {"UInt64", FileWith(OneTensor(R"("U64")", "[1]", "[0,8]"), two),
       kUnimplemented, "dtype U64 is not supported"},
      {"Int64SizeMismatch",
       FileWith(OneTensor(R"("I64")", "[2]", "[0,8]"), two), kInvalid,
       "shape [2] needs 16 bytes of I64, but data_offsets [0, 8] span 8 bytes"},
      {"Float16SizeMismatch",
       FileWith(OneTensor(R"("F16")", "[1]", "[0,4]"), one), kInvalid,
       "shape [1] needs 2 bytes of F16, but data_offsets [0, 4] span 4 bytes"},
      {"BoolDimsOverflowByteCount",
       FileWith(OneTensor(R"("BOOL")", "[4294967296,4294967296]", "[0,4]"),
                one),
       kInvalid, "has too many elements"},
      {"BeginAfterEnd", FileWith(OneTensor(R"("F32")", "[0]", "[8,4]"), two),
       kInvalid, "data_offsets [8, 4] are reversed; begin must be <= end"},
      {"EndPastDataSection",
       FileWith(OneTensor(R"("F32")", "[2]", "[0,8]"), one), kInvalid,
       "data_offsets [0, 8] run past the end of the data section, which has "
       "4 bytes"},
      {"EndPastDataSectionHuge",
       FileWith(OneTensor(R"("F32")", "[1]",
                          "[18446744073709551612,18446744073709551615]"),
                one),
       kInvalid, "run past the end of the data section"},
      {"SizeMismatch", FileWith(OneTensor(R"("F32")", "[3]", "[0,8]"), two),
       kInvalid,
       "shape [3] needs 12 bytes of F32, but data_offsets [0, 8] "
       "span 8 bytes"},
      {"Overlap",
       FileWith(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                three),
       kInvalid, "tensors 'a' (bytes [0, 8)) and 'b' (bytes [4, 12)) overlap"},
      {"SameOffsets",
       FileWith(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                one),
       kInvalid, "overlap in the data section"},
      {"HoleBetweenTensors",
       FileWith(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                three),
       kInvalid, "bytes [4, 8) of the data section belong to no tensor"},
      {"HoleAtStart", FileWith(OneTensor(R"("F32")", "[1]", "[4,8]"), two),
       kInvalid, "bytes [0, 4) of the data section belong to no tensor"},
      {"HoleAtEnd", FileWith(OneTensor(R"("F32")", "[1]", "[0,4]"), two),
       kInvalid,
       "bytes [4, 8) at the end of the data section belong to no "
       "tensor"},
      {"DataWithoutTensors", FileWith("{}", one), kInvalid,
       "bytes [0, 4) at the end of the data section"},
      {"MetadataNotObject", FileWith(R"({"__metadata__":["pt"]})"), kInvalid,
       "\"__metadata__\" is a JSON array; expected an object of strings"},
      {"MetadataValueNotString",
       FileWith(R"({"__metadata__":{"format":"pt","epoch":3}})"), kInvalid,
       "metadata key 'epoch' has a JSON number value; safetensors metadata "
       "values must be strings"},
  };
}

class SafetensorsBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(SafetensorsBadInputTest, IsRejectedWithAClearError) {
  absl::StatusOr<SafetensorsFile> parsed =
      ParseSafetensors(GetParam().bytes, "bad.safetensors");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), GetParam().code) << parsed.status();
  const std::string message(parsed.status().message());
  EXPECT_THAT(message, HasSubstr("bad.safetensors: "));
  EXPECT_THAT(message, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, SafetensorsBadInputTest, ::testing::ValuesIn(BadInputs()),
    [](const ::testing::TestParamInfo<BadInput>& param_info) {
      return param_info.param.name;
    });

}  // namespace
}  // namespace switchyard
