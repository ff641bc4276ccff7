#include "models/npy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>
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

using ::testing::HasSubstr;

std::string FloatBytes(std::initializer_list<float> values) {
  std::string bytes;
  for (float v : values)
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(v));
  return bytes;
}

// A file built by hand: magic, version `major`.0, the header length, `header`
// exactly as given (no padding), then `data`.
std::string NpyWith(const std::string& header, const std::string& data = "",
                    int major = 1) {
  std::string bytes = std::string("\x93NUMPY", 6);
  bytes.push_back(static_cast<char>(major));
  bytes.push_back(0);
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) {
    bytes.push_back(static_cast<char>(header.size() >> (8 * i)));
  }
  return bytes + header + data;
}

// NumPy's dict with the given field values.
std::string Dict(const std::string& descr, const std::string& fortran_order,
                 const std::string& shape) {
  return absl::StrCat("{'descr': ", descr, ", 'fortran_order': ", fortran_order,
                      ", 'shape': ", shape, ", }\n");
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + name;
}

void ExpectSameArray(const HostArray& actual, const HostArray& expected) {
  EXPECT_EQ(actual.shape, expected.shape);
  EXPECT_EQ(actual.dtype, expected.dtype);
  EXPECT_EQ(actual.bytes, expected.bytes);
}

TEST(NpyTest, RoundTripsThroughFile) {
  const std::vector<HostArray> arrays = {
      {Shape({2, 3}), {1, 2, 3, 4, 5, -6.5f}},
      {Shape(), {3.25f}},
      {Shape({5}), {0, 1, 2, 3, 4}},
      {Shape({0, 3}), {}},
      {Shape({1, 2, 1, 2, 1, 1, 1, 1}), {1, 2, 3, 4}},
  };
  const std::string path = TempPath("round_trip.npy");
  for (const HostArray& array : arrays) {
    SCOPED_TRACE(array.shape.ToString());
    ASSERT_TRUE(WriteNpy(path, array).ok());
    absl::StatusOr<HostArray> read = ReadNpy(path);
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameArray(*read, array);
  }
}

// Arrays of every dtype .npy can hold, with values that test each dtype's
// edges (sign, subnormals, extremes).
std::vector<HostArray> ArraysOfEveryDType() {
  const std::vector<uint16_t> half = {0x3c00, 0x8001, 0x7bff, 0xfc00};
  HostArray float16(
      Shape({2, 2}), DType::kFloat16,
      std::vector<char>(reinterpret_cast<const char*>(half.data()),
                        reinterpret_cast<const char*>(half.data()) + 8));
  const bool flags[] = {true, false, true};
  return {
      HostArray(Shape({2, 3}), {1, 2, 3, 4, 5, -6.5f}),
      float16,
      HostArray::Of<double>(Shape({3}), {1e-310, -2.5, 1e300}),
      HostArray::Of<int64_t>(Shape(), {-9007199254740993}),
      HostArray::Of<int32_t>(Shape({1, 2}), {-2147483647 - 1, 2147483647}),
      HostArray::Of<int8_t>(Shape({3}), {-128, 0, 127}),
      HostArray::Of<uint8_t>(Shape({2, 1}), {0, 255}),
      HostArray::Of<bool>(Shape({3}), flags),
      HostArray::Of<int64_t>(Shape({0, 2}), {}),
  };
}

TEST(NpyTest, RoundTripsEveryDType) {
  const std::string path = TempPath("every_dtype.npy");
  for (const HostArray& array : ArraysOfEveryDType()) {
    SCOPED_TRACE(DTypeName(array.dtype));
    ASSERT_TRUE(WriteNpy(path, array).ok());
    absl::StatusOr<HostArray> read = ReadNpy(path);
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameArray(*read, array);
  }
}

TEST(NpyTest, WritesNumpysDescrForEachDType) {
  const std::vector<std::pair<DType, std::string>> expected = {
      {DType::kFloat32, "<f4"}, {DType::kFloat16, "<f2"},
      {DType::kFloat64, "<f8"}, {DType::kInt64, "<i8"},
      {DType::kInt32, "<i4"},   {DType::kInt8, "|i1"},
      {DType::kUInt8, "|u1"},   {DType::kBool, "|b1"},
      {DType::kInt16, "<i2"},   {DType::kUInt16, "<u2"},
  };
  for (const auto& [dtype, descr] : expected) {
    SCOPED_TRACE(descr);
    const HostArray array(Shape({1}), dtype,
                          std::vector<char>(DTypeSize(dtype)));
    EXPECT_THAT(SerializeNpy(array),
                HasSubstr(absl::StrCat("{'descr': '", descr, "', ")));
  }
}

TEST(NpyTest, ReadsOneByteDTypesWithAnyByteOrderMark) {
  for (const char* descr : {"'|i1'", "'<i1'", "'>i1'", "'=i1'"}) {
    SCOPED_TRACE(descr);
    absl::StatusOr<HostArray> parsed = ParseNpy(
        NpyWith(Dict(descr, "False", "(2,)"), std::string("\xff\x07", 2)),
        "i1");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ExpectSameArray(*parsed, HostArray::Of<int8_t>(Shape({2}), {-1, 7}));
  }
  absl::StatusOr<HostArray> flags = ParseNpy(
      NpyWith(Dict("'|b1'", "False", "(3,)"), std::string("\1\0\1", 3)), "b1");
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->dtype, DType::kBool);
  EXPECT_EQ(flags->ToFloats(), std::vector<float>({1, 0, 1}));
}

TEST(NpyTest, AsNpyDTypeWidensWhatNumpyLacks) {
  const HostArray f8(Shape({2}), DType::kFloat8E4M3FN, {'\x38', '\xfe'});
  const HostArray widened = AsNpyDType(f8);
  EXPECT_EQ(widened.dtype, DType::kFloat32);
  EXPECT_EQ(widened.ToFloats(), std::vector<float>({1, -448}));
  const HostArray nibbles(Shape({2}), DType::kInt4, {'\x07', '\xf8'});
  ExpectSameArray(AsNpyDType(nibbles), HostArray::Of<int8_t>(Shape({2}), {7, -8}));
  const HostArray plain = HostArray::Of<int16_t>(Shape({1}), {-5});
  ExpectSameArray(AsNpyDType(plain), plain);
}

TEST(NpyTest, RefusesToWriteBFloat16) {
  const std::string path = TempPath("bf16.npy");
  const uint16_t one = 0x3f80;
  const HostArray array(
      Shape({1}), DType::kBFloat16,
      std::vector<char>(reinterpret_cast<const char*>(&one),
                        reinterpret_cast<const char*>(&one) + 2));
  absl::Status status = WriteNpy(path, array);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("bfloat16 has no NumPy dtype, so it cannot be stored "
                        "in a .npy file; convert the array to float32 first"));
  EXPECT_EQ(ReadNpy(path).status().code(), absl::StatusCode::kNotFound);
}

TEST(NpyTest, WriteChecksBytesAgainstTheDType) {
  // Five bytes cannot be int32 values; eight are two, not the shape's three.
  absl::Status status =
      WriteNpy(TempPath("bad_bytes.npy"),
               HostArray(Shape({1}), DType::kInt32, std::vector<char>(5)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("has 5 bytes, not a whole number of 4-byte int32 "
                        "values"));
  status = WriteNpy(TempPath("bad_bytes.npy"),
                    HostArray(Shape({3}), DType::kInt32, std::vector<char>(8)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("has 2 values but shape [3] has 3 elements (8 bytes "
                        "of int32)"));
}

TEST(NpyTest, SerializesToTheNumpyLayout) {
  // Header length 118 (0x76) puts the data at byte 128.
  const std::string expected =
      std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" +
      std::string(60, ' ') + "\n" +
      std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
  EXPECT_EQ(SerializeNpy({Shape({2}), {1.0f, -2.0f}}), expected);
}

TEST(NpyTest, WritesShapeTuplesAndAlignsDataTo64Bytes) {
  struct Case {
    HostArray array;
    const char* tuple;
  };
  const std::vector<Case> cases = {
      {{Shape(), {1}}, "'shape': (), }"},
      {{Shape({3}), {1, 2, 3}}, "'shape': (3,), }"},
      {{Shape({1, 3}), {1, 2, 3}}, "'shape': (1, 3), }"},
      {{Shape({123456789, 0, 7, 1, 1, 1, 1, 1}), {}},
       "'shape': (123456789, 0, 7, 1, 1, 1, 1, 1), }"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tuple);
    const std::string bytes = SerializeNpy(c.array);
    EXPECT_THAT(bytes, HasSubstr(c.tuple));
    const size_t data_start = bytes.size() - c.array.bytes.size();
    EXPECT_EQ(data_start % 64, 0u);
    EXPECT_EQ(bytes[data_start - 1], '\n');
  }
}

TEST(NpyTest, AcceptsHeaderVariations) {
  const std::string data = FloatBytes({1, 2, 3, 4, 5, 6});
  const std::vector<std::string> bytes = {
      // What NumPy 1.24+ writes: spare spaces after the dict, 64-aligned.
      NpyWith("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                  std::string(60, ' ') + "\n",
              data),
      NpyWith("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
              data),
      NpyWith("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(2,3)}",
              data),
      NpyWith("\n {  'descr' : '<f4' ,\t'fortran_order':False,\n"
              "'shape':( 2 , 3 , ) , }  \n",
              data),
      NpyWith(Dict("'<f4'", "False", "(2L, 3L)"), data),
      NpyWith(Dict("'<f4'", "False", "(2, 3)"), data, /*major=*/2),
      NpyWith(Dict("'<f4'", "False", "(2, 3)"), data, /*major=*/3),
  };
  for (size_t i = 0; i < bytes.size(); ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<HostArray> parsed = ParseNpy(bytes[i], "in.npy");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ExpectSameArray(*parsed, {Shape({2, 3}), {1, 2, 3, 4, 5, 6}});
  }
}

TEST(NpyTest, ParsesScalarAndEmptyArrays) {
  absl::StatusOr<HostArray> scalar =
      ParseNpy(NpyWith(Dict("'<f4'", "False", "()"), FloatBytes({7})), "s");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  ExpectSameArray(*scalar, {Shape(), {7}});
  absl::StatusOr<HostArray> empty =
      ParseNpy(NpyWith(Dict("'<f4'", "False", "(4, 0)")), "e");
  ASSERT_TRUE(empty.ok()) << empty.status();
  ExpectSameArray(*empty, {Shape({4, 0}), {}});
}

TEST(NpyTest, ReadingMissingFileIsNotFound) {
  const std::string path = TempPath("does_not_exist.npy");
  absl::StatusOr<HostArray> read = ReadNpy(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr(path));
}

TEST(NpyTest, FailedWriteKeepsTheExistingFile) {
  const std::string path = TempPath("keep.npy");
  const HostArray original = {Shape({2}), {1, 2}};
  ASSERT_TRUE(WriteNpy(path, original).ok());

  // A second hard link to the file makes the write refuse (replacing the
  // file would split the links); the error names the user's path, and a
  // user's own PATH.tmp is never touched.
  ASSERT_EQ(mkdir((path + ".tmp").c_str(), 0755), 0);
  ASSERT_EQ(link(path.c_str(), (path + ".link").c_str()), 0);
  absl::Status status = WriteNpy(path, {Shape({3}), {4, 5, 6}});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("hard links"));
  unlink((path + ".link").c_str());
  ASSERT_TRUE(WriteNpy(path, {Shape({3}), {4, 5, 6}}).ok());
  struct stat tmp_info;
  EXPECT_EQ(stat((path + ".tmp").c_str(), &tmp_info), 0);
  EXPECT_TRUE(S_ISDIR(tmp_info.st_mode));
  rmdir((path + ".tmp").c_str());
  ASSERT_TRUE(WriteNpy(path, original).ok());

  // So does an invalid array, before anything touches the disk.
  status = WriteNpy(path, {Shape({2, 3}), {1, 2, 3, 4, 5}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("has 5 values but shape [2, 3] has 6 elements"));
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  status = WriteNpy(path, {Shape({1, 1, 1, 1, 1, 1, 1, 1, 1}), {1}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("rank 9"));

  absl::StatusOr<HostArray> read = ReadNpy(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameArray(*read, original);
}

// Every malformed or unsupported input, with the error code and a message
// fragment.
struct BadInput {
  std::string name;
  std::string bytes;
  absl::StatusCode code;
  std::string message;
};

std::vector<BadInput> BadInputs() {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  constexpr auto kUnimplemented = absl::StatusCode::kUnimplemented;
  const std::string six = FloatBytes({1, 2, 3, 4, 5, 6});
  const std::string magic("\x93NUMPY", 6);
  return {
      {"EmptyFile", "", kInvalid, "truncated .npy file: 0 bytes"},
      {"TruncatedMagic", "\x93NUM", kInvalid, "truncated .npy file: 4 bytes"},
      {"BadMagic", std::string("PK\x03\x04\x14\x00\x00\x00", 8), kInvalid,
       "not a .npy file: it does not start with \"\\x93NUMPY\" (it starts "
       "with \"PK\\x03\\x04\\x14\\x00\")"},
      {"TruncatedVersion1Preamble", magic + std::string("\x01\x00\x10", 3),
       kInvalid,
       "truncated .npy file: 9 bytes, too short for the 10-byte "
       "version 1.0 preamble"},
      {"TruncatedVersion2Preamble", magic + std::string("\x02\x00\x10\x00", 4),
       kInvalid, "too short for the 12-byte version 2.0 preamble"},
      {"UnknownMajorVersion", magic + std::string("\x04\x00\x00\x00", 4),
       kUnimplemented, ".npy format version 4.0 is not supported"},
      {"UnknownMinorVersion", magic + std::string("\x01\x01\x00\x00", 4),
       kUnimplemented, "version 1.1 is not supported"},
      {"HeaderPastEnd", magic + std::string("\x01\x00\xc8\x00", 4) + "{}",
       kInvalid,
       "header length 200 bytes runs past the end of the file: "
       "only 2 bytes follow"},
      {"HeaderPastEndVersion2",
       magic + std::string("\x02\x00\xff\xff\xff\xff", 6) + "{}", kInvalid,
       "header length 4294967295 bytes runs past the end"},
      {"NotADict", NpyWith("'descr': '<f4'"), kInvalid,
       "malformed .npy header: expected '{' opening the dict at offset 0"},
      {"UnquotedKey", NpyWith("{descr: '<f4'}"), kInvalid,
       "expected a quoted key at offset 1"},
      {"MissingColon", NpyWith("{'descr' '<f4'}"), kInvalid,
       "expected ':' after key 'descr' at offset 9 of \"{'descr' '<f4'}\""},
      {"UnterminatedString", NpyWith("{'descr': '<f4}"), kInvalid,
       "unterminated string"},
      {"DescrNotString", NpyWith(Dict("4", "False", "(1,)")), kInvalid,
       "expected a quoted string for 'descr'"},
      {"FortranOrderNotBool", NpyWith(Dict("'<f4'", "0", "(1,)")), kInvalid,
       "expected True or False for 'fortran_order'"},
      {"ShapeNotTuple", NpyWith(Dict("'<f4'", "False", "[2, 3]")), kInvalid,
       "expected a tuple such as (2, 3)"},
      {"ShapeMissingComma", NpyWith(Dict("'<f4'", "False", "(2 3)")), kInvalid,
       "expected ',' or ')' in the shape"},
      {"ShapeUnclosed", NpyWith("{'shape': (2, 3"), kInvalid,
       "expected ',' or ')' in the shape"},
      {"NegativeDim", NpyWith(Dict("'<f4'", "False", "(-1,)")), kInvalid,
       "expected a non-negative integer dimension"},
      {"DimPastInt64",
       NpyWith(Dict("'<f4'", "False", "(9223372036854775808,)")), kInvalid,
       "expected a non-negative integer dimension (at most 2^63-1)"},
      {"MissingCommaBetweenItems", NpyWith("{'descr': '<f4' 'shape': ()}"),
       kInvalid, "expected ',' or '}' after the value of 'descr'"},
      {"UnclosedDict", NpyWith("{'descr': '<f4', "), kInvalid,
       "expected a quoted key"},
      {"TextAfterDict", NpyWith(Dict("'<f4'", "False", "(6,)") + "x", six),
       kInvalid,
       "unexpected text after the closing '}' at offset 58 of "
       "\"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }\\nx\""},
      {"UnknownKey", NpyWith("{'descr': '<f4', 'order': 'C'}"), kInvalid,
       "unexpected key 'order'"},
      {"DuplicateKey", NpyWith("{'descr': '<f4', 'descr': '<f4'}"), kInvalid,
       "key 'descr' appears twice"},
      {"MissingDescr", NpyWith("{'fortran_order': False, 'shape': ()}"),
       kInvalid, ".npy header has no 'descr' key"},
      {"MissingFortranOrder", NpyWith("{'descr': '<f4', 'shape': ()}"),
       kInvalid, ".npy header has no 'fortran_order' key"},
      {"MissingShape", NpyWith("{'descr': '<f4', 'fortran_order': False}"),
       kInvalid, ".npy header has no 'shape' key"},
      {"BigEndianFloat32", NpyWith(Dict("'>f4'", "False", "(6,)"), six),
       kUnimplemented,
       "dtype descr '>f4' is not supported; the supported ones are '<f4' "
       "(float32), '<f2' (float16), '<f8' (float64), '<i8' (int64), '<i4' "
       "(int32), '|i1' (int8), '|u1' (uint8), '|b1' (bool), '<i2' (int16), "
       "'<u2' (uint16). Save little-endian data"},
      {"BigEndianInt64", NpyWith(Dict("'>i8'", "False", "(3,)"), six),
       kUnimplemented, "dtype descr '>i8' is not supported"},
      {"Complex64", NpyWith(Dict("'<c8'", "False", "(3,)"), six),
       kUnimplemented,
       "dtype descr '<c8' is not supported; the supported ones are"},
      {"UInt32", NpyWith(Dict("'<u4'", "False", "(6,)"), six), kUnimplemented,
       "dtype descr '<u4' is not supported"},
      {"Int64DataTooShort", NpyWith(Dict("'<i8'", "False", "(4,)"), six),
       kInvalid,
       "shape (4,) of int64 needs 32 data bytes, but the file has 24; it is "
       "truncated"},
      {"StructuredDtype",
       NpyWith(Dict("[('a', '<f4'), ('b', '<f4')]", "False", "(3,)"), six),
       kUnimplemented, "structured (record) arrays are not supported"},
      {"FortranOrder", NpyWith(Dict("'<f4'", "True", "(2, 3)"), six),
       kUnimplemented,
       "Fortran-order (column-major) arrays are not supported; save a C-order "
       "array: np.save(path, np.ascontiguousarray(x))"},
      {"RankOverEight",
       NpyWith(Dict("'<f4'", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"),
               FloatBytes({1})),
       kInvalid, "has rank 9; at most 8 dimensions"},
      {"DimsOverflowElementCount",
       NpyWith(Dict("'<f4'", "False", "(4294967296, 4294967296)")), kInvalid,
       "has too many elements"},
      {"DimsOverflowByteCount",
       NpyWith(Dict("'<f4'", "False", "(2305843009213693952,)")), kInvalid,
       "is too large in bytes"},
      {"DataTooShort", NpyWith(Dict("'<f4'", "False", "(2, 3)"), six.substr(4)),
       kInvalid,
       "shape (2, 3) of float32 needs 24 data bytes, but the file "
       "has 20; it is truncated"},
      {"DataTooLong", NpyWith(Dict("'<f4'", "False", "(2, 3)"), six + "abcd"),
       kInvalid,
       "needs 24 data bytes, but the file has 28; it has extra bytes"},
  };
}

class NpyBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(NpyBadInputTest, IsRejectedWithAClearError) {
  absl::StatusOr<HostArray> parsed = ParseNpy(GetParam().bytes, "bad.npy");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), GetParam().code) << parsed.status();
  const std::string message(parsed.status().message());
  EXPECT_THAT(message, HasSubstr("bad.npy: "));
  EXPECT_THAT(message, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, NpyBadInputTest, ::testing::ValuesIn(BadInputs()),
    [](const ::testing::TestParamInfo<BadInput>& param_info) {
      return param_info.param.name;
    });

}  // namespace
}  // namespace switchyard
