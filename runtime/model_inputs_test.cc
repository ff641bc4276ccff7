#include "runtime/model_inputs.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/npy.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;

OnnxValueInfo Input(const std::string& name, DType dtype,
                    std::vector<std::string> dims) {
  OnnxValueInfo in;
  in.name = name;
  in.dtype = dtype;
  in.has_shape = true;
  for (const std::string& d : dims) {
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
      in.dims.push_back(std::stoll(d));
      in.dim_names.push_back("");
    } else {
      in.dims.push_back(std::nullopt);
      in.dim_names.push_back(d);
    }
  }
  return in;
}

// ids [batch, seq] int64 and mask [batch, seq] bool: a transformer's inputs.
std::vector<OnnxValueInfo> TokenInputs() {
  return {Input("ids", DType::kInt64, {"batch", "seq"}),
          Input("mask", DType::kBool, {"batch", "seq"})};
}

std::string Temp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

std::string WriteArray(const std::string& name, const HostArray& array) {
  const std::string path = Temp(name);
  EXPECT_TRUE(WriteNpy(path, array).ok());
  return path;
}

HostArray Int64s(Shape shape) {
  std::vector<int64_t> v(shape.num_elements(), 3);
  return HostArray::Of<int64_t>(shape, v);
}

HostArray Bools(Shape shape) {
  return HostArray(shape, DType::kBool, std::vector<char>(shape.num_elements(), 1));
}

TEST(ModelInputsTest, SeededInputsOfTheDeclaredDtypes) {
  InputRequest request;
  request.shapes = {"ids:2x7"};
  absl::StatusOr<InputArrays> in = MakeInputArrays(TokenInputs(), request);
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_EQ(in->arrays.size(), 2u);
  EXPECT_EQ(in->arrays[0].dtype, DType::kInt64);
  EXPECT_EQ(in->arrays[0].shape, Shape({2, 7}));
  // The mask's symbolic dimensions come from the ids' shape.
  EXPECT_EQ(in->arrays[1].dtype, DType::kBool);
  EXPECT_EQ(in->arrays[1].shape, Shape({2, 7}));
  for (int64_t i = 0; i < 14; ++i) {
    const double id = in->arrays[0].ElementAsDouble(i);
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 10);
    const double m = in->arrays[1].ElementAsDouble(i);
    EXPECT_TRUE(m == 0 || m == 1);
  }
  EXPECT_EQ(in->sources[0], "seeded");
}

TEST(ModelInputsTest, SymbolicDimensionWithoutASizeSaysHowToGiveIt) {
  absl::StatusOr<InputArrays> in = MakeInputArrays(TokenInputs(), InputRequest());
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(in.status().message(), HasSubstr("input ids [batch, seq] int64"));
  EXPECT_THAT(in.status().message(), HasSubstr("dimension 1 ('seq') is symbolic"));
  EXPECT_THAT(in.status().message(), HasSubstr("--input_shape=ids:1x16"));
}

TEST(ModelInputsTest, FilesInOrderAndByName) {
  const std::string ids = WriteArray("ids.npy", Int64s(Shape({2, 5})));
  const std::string mask = WriteArray("mask.npy", Bools(Shape({2, 5})));
  for (const std::vector<std::string>& files :
       {std::vector<std::string>{ids, mask}, {absl::StrCat(ids, ",", mask)},
        {"mask=" + mask, "ids=" + ids}}) {
    InputRequest request;
    request.files = files;
    absl::StatusOr<InputArrays> in = MakeInputArrays(TokenInputs(), request);
    ASSERT_TRUE(in.ok()) << in.status();
    EXPECT_EQ(in->arrays[0].dtype, DType::kInt64);
    EXPECT_EQ(in->arrays[1].dtype, DType::kBool);
    EXPECT_EQ(in->arrays[1].shape, Shape({2, 5}));
    EXPECT_EQ(in->sources[0], ids);
    EXPECT_EQ(in->sources[1], mask);
  }
}

TEST(ModelInputsTest, BadFilesAreRefusedNamingTheInput) {
  const std::string ids = WriteArray("ids2.npy", Int64s(Shape({2, 5})));
  const std::string mask = WriteArray("mask2.npy", Bools(Shape({2, 5})));
  const std::string short_mask = WriteArray("mask3.npy", Bools(Shape({2, 4})));
  const std::string int_mask = WriteArray("mask4.npy", Int64s(Shape({2, 5})));
  struct Case {
    std::vector<std::string> files;
    std::vector<std::string> want;
  } cases[] = {
      {{ids}, {"--input gives 1 file but the model takes 2 inputs",
               "ids [batch, seq] int64, mask [batch, seq] bool"}},
      {{"idz=" + ids, "mask=" + mask}, {"the model has no input 'idz'"}},
      {{"ids=" + ids, "ids=" + ids}, {"input 'ids' twice"}},
      {{"ids=" + ids, mask}, {"mixes files by name and by position"}},
      {{ids, int_mask},
       {"input mask [batch, seq] bool is bool but the file holds int64",
        "x.astype(np.bool_)"}},
      {{ids, short_mask},
       {"symbolic dimension 'seq' is 5 for input 'ids'", "but 4 for input 'mask'"}},
  };
  for (const Case& c : cases) {
    InputRequest request;
    request.files = c.files;
    absl::StatusOr<InputArrays> in = MakeInputArrays(TokenInputs(), request);
    ASSERT_FALSE(in.ok()) << c.files[0];
    EXPECT_EQ(in.status().code(), absl::StatusCode::kInvalidArgument);
    for (const std::string& want : c.want) {
      EXPECT_THAT(in.status().message(), HasSubstr(want));
    }
  }
}

TEST(ModelInputsTest, FixedDimensionsOfAFileMustMatch) {
  const std::vector<OnnxValueInfo> image = {
      Input("x", DType::kFloat32, {"N", "3", "224", "224"})};
  InputRequest request;
  request.files = {WriteArray("x.npy", HostArray(Shape({2, 3, 200, 224}),
                                                 std::vector<float>(2 * 3 * 200 * 224)))};
  absl::StatusOr<InputArrays> in = MakeInputArrays(image, request);
  ASSERT_FALSE(in.ok());
  EXPECT_THAT(in.status().message(),
              HasSubstr("dimension 2 is fixed at 224 in the model, the array has 200"));
  // Rank.
  request.files = {WriteArray("x1.npy", HostArray(Shape({3}), {1, 2, 3}))};
  in = MakeInputArrays(image, request);
  ASSERT_FALSE(in.ok());
  EXPECT_THAT(in.status().message(), HasSubstr("has rank 4, the shape given, [3], has rank 1"));
}

TEST(ModelInputsTest, InputShapeFlagForms) {
  const std::vector<OnnxValueInfo> one = {
      Input("x", DType::kFloat32, {"N", "3", "H", "W"})};
  InputRequest request;
  request.shapes = {"1x3x32x48"};  // the unnamed form, one input
  absl::StatusOr<std::vector<Shape>> shapes = InputShapes(one, request);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], Shape({1, 3, 32, 48}));

  request.shapes = {"1x5"};  // unnamed, two inputs
  EXPECT_THAT(InputShapes(TokenInputs(), request).status().message(),
              HasSubstr("names no input, but the model has 2 inputs"));
  request.shapes = {"ids:2x3", "mask:2x4"};  // shared names disagree
  EXPECT_THAT(InputShapes(TokenInputs(), request).status().message(),
              HasSubstr("symbolic dimension 'seq' is 3 for input 'ids'"));
  request.shapes = {"nope:2x3"};
  EXPECT_THAT(InputShapes(TokenInputs(), request).status().message(),
              HasSubstr("the model has no input 'nope'"));
  request.shapes = {"ids:2xq"};
  EXPECT_THAT(InputShapes(TokenInputs(), request).status().message(),
              HasSubstr("--input_shape wants NAME:DIMS"));

  // --batch sets dimension 0; bench also over --input_shape's.
  request.shapes = {"ids:2x3"};
  request.batch = 4;
  EXPECT_THAT(InputShapes(TokenInputs(), request).status().message(),
              HasSubstr("symbolic dimension 'batch' is 2 for input 'ids'"));
  request.batch_overrides_shapes = true;
  shapes = InputShapes(TokenInputs(), request);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[1], Shape({4, 3}));
}

TEST(ModelInputsTest, ScalarAndFixedInputsNeedNoShape) {
  const std::vector<OnnxValueInfo> inputs = {Input("k", DType::kInt64, {}),
                                             Input("x", DType::kFloat32, {"3", "4"})};
  absl::StatusOr<std::vector<Shape>> shapes = InputShapes(inputs, InputRequest());
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], Shape());
  EXPECT_EQ((*shapes)[1], Shape({3, 4}));
}

TEST(ModelInputsTest, HugeShapesAreResourceExhaustedBeforeAllocating) {
  InputRequest request;
  request.shapes = {"ids:100000x1000000"};
  absl::Status status = InputShapes(TokenInputs(), request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("ids [100000, 1000000]"));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
