// OnnxModel::Load on small models built here with the ModelProto API: a
// valid Conv -> Relu -> Flatten -> Gemm model runs on cpu:0 and ref:0 with
// hand-computed results (its weights inline or in an external data file),
// and every kind of broken file is a clear error (status code and a message
// naming the problem), never a crash.

#include "onnx/onnx_model.h"

#include <cstdint>
#include <cstdlib>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/host_array.h"
#include "onnx/onnx_pb.h"
#include "onnx/testing/model_proto_builder.h"

namespace switchyard {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::HasSubstr;
using onnx_testing::AddInitializer;
using onnx_testing::AddInts;
using onnx_testing::AddNode;
using onnx_testing::AddValueInfo;
using onnx_testing::TmpPath;

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// x [1, 1, 3, 3] -> Conv (2 filters 2x2, bias) -> Relu -> Flatten -> Gemm
// (transB, 3 outputs) -> y [1, 3]. With x = 1..9:
//   conv filter 0 ([[1, 0], [0, 1]], bias 0.5): 6.5, 8.5, 12.5, 14.5
//   conv filter 1 ([[-1, 0], [0, 0]], bias 2): 1, 0, -2, -3 -> relu 1, 0, 0, 0
//   flat = [6.5, 8.5, 12.5, 14.5, 1, 0, 0, 0]
//   gemm rows: ones -> 43, e0 -> 6.5, 2*e4 -> 2; plus C [0, 1, -1]
//   y = [43, 7.5, 1]
onnx::ModelProto ValidModel(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("onnx_model_test");
  onnx::OperatorSetIdProto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("tiny");
  AddInitializer(g, "conv.weight", {2, 1, 2, 2}, {1, 0, 0, 1, -1, 0, 0, 0});
  AddInitializer(g, "conv.bias", {2}, {0.5f, 2});
  std::vector<float> fc(24, 0.0f);
  for (int i = 0; i < 8; ++i) fc[i] = 1;
  fc[8 + 0] = 1;
  fc[16 + 4] = 2;
  AddInitializer(g, "fc.weight", {3, 8}, fc);
  AddInitializer(g, "fc.bias", {3}, {0, 1, -1});
  AddValueInfo(g.add_input(), "x", {1, 1, 3, 3});
  AddValueInfo(g.add_output(), "y", {1, 3});
  onnx::NodeProto* conv =
      AddNode(g, "Conv", {"x", "conv.weight", "conv.bias"}, {"c"});
  AddInts(conv, "strides", {1, 1});
  AddInts(conv, "kernel_shape", {2, 2});
  AddNode(g, "Relu", {"c"}, {"r"});
  AddNode(g, "Flatten", {"r"}, {"f"});
  onnx::NodeProto* gemm = AddNode(g, "Gemm", {"f", "fc.weight", "fc.bias"}, {"y"});
  onnx::AttributeProto* trans_b = gemm->add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  return m;
}

std::string Save(const onnx::ModelProto& m, const std::string& name) {
  const std::string path = TmpPath(name);
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  WriteFile(path, bytes);
  return path;
}

onnx::TensorProto* FindInitializer(onnx::ModelProto& m, const std::string& name) {
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

void ExpectForward(OnnxModel& model, const std::string& device) {
  const Device d = *Device::Parse(device);
  ASSERT_TRUE(model.To(d).ok()) << device;
  std::vector<float> x(9);
  for (int i = 0; i < 9; ++i) x[i] = static_cast<float>(i + 1);
  absl::StatusOr<Tensor> input = Tensor::FromVector(
      Shape({1, 1, 3, 3}), x, d, BackendRegistry::Global());
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<Tensor> y = model.Forward(*input);
  ASSERT_TRUE(y.ok()) << device << ": " << y.status();
  EXPECT_EQ(y->shape(), Shape({1, 3}));
  absl::StatusOr<std::vector<float>> v = y->ToVector();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(*v, ElementsAre(FloatEq(43), FloatEq(7.5f), FloatEq(1))) << device;
}

// Load must fail with `code` and a message holding `part` and the path.
void ExpectLoadError(const std::string& path, absl::StatusCode code,
                     const std::vector<std::string>& parts) {
  absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::Load(path);
  ASSERT_FALSE(m.ok()) << path << " loaded";
  EXPECT_EQ(m.status().code(), code) << m.status();
  EXPECT_THAT(std::string(m.status().message()), HasSubstr(path));
  for (const std::string& part : parts) {
    EXPECT_THAT(std::string(m.status().message()), HasSubstr(part));
  }
}

TEST(OnnxModelTest, ValidModelRunsOnCpuAndReference) {
  const std::string path = Save(ValidModel(), "valid.onnx");
  absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::Load(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->opset(), 13);
  ASSERT_EQ((*m)->inputs().size(), 1u);
  EXPECT_EQ((*m)->inputs()[0].ToString(), "x [1, 1, 3, 3] float32");
  EXPECT_EQ((*m)->NumParameters(), 8 + 2 + 24 + 3);
  ExpectForward(**m, "cpu:0");
  ExpectForward(**m, "ref:0");
}

TEST(OnnxModelTest, ExternalDataFromASiblingFileLoads) {
  onnx::ModelProto m = ValidModel();
  onnx::TensorProto* w = FindInitializer(m, "fc.weight");
  // 8 bytes of padding, then the weight.
  WriteFile(TmpPath("fc_weight.bin"), std::string(8, '\0') + w->raw_data());
  const size_t length = w->raw_data().size();
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const std::string& k, const std::string& v) {
    onnx::StringStringEntryProto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", "fc_weight.bin");
  add("offset", "8");
  add("length", absl::StrCat(length));
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(Save(m, "external.onnx"));
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectForward(**model, "cpu:0");
}

TEST(OnnxModelTest, LoadsFromBytesInMemory) {
  std::string bytes;
  ASSERT_TRUE(ValidModel().SerializeToString(&bytes));
  absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::LoadFromBytes(bytes, "the bytes");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->path(), "the bytes");
  ExpectForward(**m, "cpu:0");
  // Bad bytes: named as given, never a crash.
  for (const std::string& bad : {std::string(), bytes.substr(0, bytes.size() / 2),
                                 std::string("\xff\xfe not a model")}) {
    absl::StatusOr<std::unique_ptr<OnnxModel>> refused =
        OnnxModel::LoadFromBytes(bad, "the bytes");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(refused.status().message()), HasSubstr("the bytes: "));
  }
}

TEST(OnnxModelTest, BytesReadExternalDataFromTheFolderGiven) {
  onnx::ModelProto m = ValidModel();
  onnx::TensorProto* w = FindInitializer(m, "fc.weight");
  WriteFile(TmpPath("bytes_weight.bin"), w->raw_data());
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("bytes_weight.bin");
  std::string bytes;
  ASSERT_TRUE(m.SerializeToString(&bytes));
  const std::string folder = TmpPath("");
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::LoadFromBytes(bytes, "the bytes", folder.substr(0, folder.size() - 1));
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectForward(**model, "cpu:0");
}

TEST(OnnxModelTest, EmptyFile) {
  const std::string path = TmpPath("empty.onnx");
  WriteFile(path, "");
  ExpectLoadError(path, absl::StatusCode::kInvalidArgument, {"empty"});
}

TEST(OnnxModelTest, MissingFile) {
  ExpectLoadError(TmpPath("no_such.onnx"), absl::StatusCode::kNotFound,
                  {"cannot open"});
}

TEST(OnnxModelTest, TruncatedFile) {
  std::string bytes;
  ASSERT_TRUE(ValidModel().SerializeToString(&bytes));
  const std::string path = TmpPath("truncated.onnx");
  WriteFile(path, bytes.substr(0, bytes.size() / 2));
  ExpectLoadError(path, absl::StatusCode::kInvalidArgument,
                  {"does not parse"});
}

TEST(OnnxModelTest, RandomBytes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bytes(64 + trial * 97, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const std::string path = TmpPath(absl::StrCat("random", trial, ".onnx"));
    WriteFile(path, bytes);
    absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::Load(path);
    ASSERT_FALSE(m.ok()) << "trial " << trial;
    EXPECT_THAT(m.status().code(),
                ::testing::AnyOf(absl::StatusCode::kInvalidArgument,
                                 absl::StatusCode::kUnimplemented))
        << m.status();
    EXPECT_THAT(std::string(m.status().message()), HasSubstr(path));
  }
}

TEST(OnnxModelTest, RawDataSizeDoesNotMatchDims) {
  onnx::ModelProto m = ValidModel();
  FindInitializer(m, "fc.weight")->mutable_raw_data()->resize(20);
  ExpectLoadError(Save(m, "raw_size.onnx"), absl::StatusCode::kInvalidArgument,
                  {"'fc.weight'", "20 bytes", "needs 96"});
}

TEST(OnnxModelTest, WrongAttributeType) {
  onnx::ModelProto m = ValidModel();
  onnx::AttributeProto* strides =
      m.mutable_graph()->mutable_node(0)->mutable_attribute(0);
  ASSERT_EQ(strides->name(), "strides");
  strides->clear_ints();
  strides->set_type(onnx::AttributeProto::FLOAT);
  strides->set_f(1.0f);
  ExpectLoadError(Save(m, "float_strides.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"Conv", "strides", "INTS"});
}

TEST(OnnxModelTest, NodesOutOfOrderAreSorted) {
  onnx::ModelProto m = ValidModel();
  // Relu and Flatten swapped: Flatten reads "r" before Relu defines it;
  // Gemm moved first. The model computes the same as the valid one.
  m.mutable_graph()->mutable_node()->SwapElements(1, 2);
  m.mutable_graph()->mutable_node()->SwapElements(0, 3);
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(Save(m, "unsorted.onnx"), BackendRegistry::Global());
  ASSERT_TRUE(model.ok()) << model.status();
}

TEST(OnnxModelTest, TwoProducersOfOneValue) {
  onnx::ModelProto m = ValidModel();
  m.mutable_graph()->mutable_node(2)->set_output(0, "r");  // Flatten writes Relu's
  ExpectLoadError(Save(m, "two_producers.onnx"), absl::StatusCode::kInvalidArgument,
                  {"value 'r' is produced by two nodes"});
}

TEST(OnnxModelTest, Cycle) {
  onnx::ModelProto m = ValidModel();
  onnx::GraphProto& g = *m.mutable_graph();
  // Relu reads Flatten's output, Flatten reads Relu's.
  g.mutable_node(1)->set_input(0, "f");
  ExpectLoadError(Save(m, "cycle.onnx"), absl::StatusCode::kInvalidArgument,
                  {"cycle", "'Relu_1', 'Flatten_2'"});
}

TEST(OnnxModelTest, MissingInitializer) {
  onnx::ModelProto m = ValidModel();
  m.mutable_graph()->mutable_node(3)->set_input(1, "fc.weight_missing");
  ExpectLoadError(Save(m, "missing_init.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"Gemm", "'fc.weight_missing'"});
}

// Found by the fuzzer: a converter read input 1 of a Conv that had one.
TEST(OnnxModelTest, MissingOrEmptyRequiredInput) {
  onnx::ModelProto m = ValidModel();
  m.mutable_graph()->mutable_node(0)->mutable_input()->DeleteSubrange(1, 2);
  ExpectLoadError(Save(m, "conv_one_input.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"Conv", "input 1 is missing", "at least 2"});
  onnx::ModelProto m2 = ValidModel();
  m2.mutable_graph()->mutable_node(1)->set_input(0, "");
  ExpectLoadError(Save(m2, "relu_empty_input.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"Relu", "input 0 is missing", "empty"});
  onnx::ModelProto m3 = ValidModel();
  m3.mutable_graph()->mutable_node(1)->clear_output();
  ExpectLoadError(Save(m3, "relu_no_output.onnx"),
                  absl::StatusCode::kInvalidArgument, {"Relu", "no outputs"});
}

// Found by the fuzzer: Reshape's element count overflowed int64.
TEST(OnnxModelTest, ReshapeToAShapeTooBigToCount) {
  onnx::ModelProto m = ValidModel();
  onnx::GraphProto& g = *m.mutable_graph();
  onnx::TensorProto* shape = g.add_initializer();
  shape->set_name("huge_shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t d : {int64_t{1} << 40, int64_t{1} << 40, int64_t{-1}}) {
    shape->add_int64_data(d);
  }
  onnx::NodeProto* flatten = g.mutable_node(2);
  flatten->set_op_type("Reshape");
  flatten->add_input("huge_shape");
  ExpectLoadError(Save(m, "reshape_overflow.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"Reshape", "more elements than an int64 counts"});
}

TEST(OnnxModelTest, HugeDimensions) {
  onnx::ModelProto m = ValidModel();
  onnx::TensorProto* t = FindInitializer(m, "fc.bias");
  t->clear_dims();
  t->add_dims(int64_t{1} << 40);
  t->add_dims(int64_t{1} << 40);
  ExpectLoadError(Save(m, "huge.onnx"), absl::StatusCode::kInvalidArgument,
                  {"'fc.bias'"});
}

TEST(OnnxModelTest, HugeInputDimension) {
  onnx::ModelProto m = ValidModel();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()
      ->mutable_shape()->mutable_dim(0)->set_dim_value(int64_t{1} << 62);
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(Save(m, "huge_input.onnx"));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument)
      << model.status();
}

TEST(OnnxModelTest, NegativeDimensions) {
  onnx::ModelProto m = ValidModel();
  onnx::TensorProto* t = FindInitializer(m, "fc.bias");
  t->clear_dims();
  t->add_dims(-3);
  ExpectLoadError(Save(m, "negative.onnx"), absl::StatusCode::kInvalidArgument,
                  {"'fc.bias'", "-3"});

  onnx::ModelProto m2 = ValidModel();
  m2.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()
      ->mutable_shape()->mutable_dim(2)->set_dim_value(-1);
  ExpectLoadError(Save(m2, "negative_input.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"'x'", "negative dimension -1"});
}

TEST(OnnxModelTest, OlderOpsetsAreLiftedByOnnxsVersionConverter) {
  for (int opset : {7, 9, 10}) {
    const std::string path = Save(ValidModel(opset), absl::StrCat("opset", opset, ".onnx"));
    absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::Load(path);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ((*m)->file_opset(), opset);
    EXPECT_EQ((*m)->opset(), kMinOnnxOpset);
    ExpectForward(**m, "cpu:0");
    ExpectForward(**m, "ref:0");
  }
}

TEST(OnnxModelTest, AnOldModelOnnxsCheckerRefusesIsNotConverted) {
  onnx::ModelProto m = ValidModel(9);
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");  // Relu of an undefined value
  ExpectLoadError(Save(m, "opset9_broken.onnx"), absl::StatusCode::kInvalidArgument,
                  {"ONNX's checker refuses the model", "opset 9 to 11", "nowhere"});
}

TEST(OnnxModelTest, OpsetsNewerThanOnnxRuntimesAreRefused) {
  ExpectLoadError(Save(ValidModel(27), "opset27.onnx"), absl::StatusCode::kUnimplemented,
                  {"opset 27", "opsets 1 to 26", "opset_version=26"});
}

TEST(OnnxModelTest, OpsetsUpToTheNewestLoad) {
  for (int opset : {18, 21, 23, 26}) {
    absl::StatusOr<std::unique_ptr<OnnxModel>> m = OnnxModel::Load(
        Save(ValidModel(opset), absl::StrCat("opset", opset, ".onnx")), BackendRegistry::Global());
    EXPECT_TRUE(m.ok()) << opset << ": " << m.status();
  }
}

TEST(OnnxModelTest, UnknownOpListsTheSupportedOnes) {
  onnx::ModelProto m = ValidModel();
  m.mutable_graph()->mutable_node(1)->set_op_type("Frobnicate");
  ExpectLoadError(Save(m, "unknown_op.onnx"), absl::StatusCode::kUnimplemented,
                  {"op_type Frobnicate", "Conv", "Gemm", "Relu"});
}

TEST(OnnxModelTest, UnknownAttribute) {
  onnx::ModelProto m = ValidModel();
  onnx::AttributeProto* a = m.mutable_graph()->mutable_node(1)->add_attribute();
  a->set_name("frobnication");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(3);
  ExpectLoadError(Save(m, "unknown_attr.onnx"), absl::StatusCode::kUnimplemented,
                  {"Relu", "frobnication"});
}

// Moves fc.weight into external data at `location`, `offset`.
onnx::ModelProto WithExternalWeight(const std::string& location,
                                    const std::string& offset) {
  onnx::ModelProto m = ValidModel();
  onnx::TensorProto* w = FindInitializer(m, "fc.weight");
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* e = w->add_external_data();
  e->set_key("location");
  e->set_value(location);
  e = w->add_external_data();
  e->set_key("offset");
  e->set_value(offset);
  return m;
}

TEST(OnnxModelTest, ExternalDataAbsolutePath) {
  WriteFile(TmpPath("abs.bin"), std::string(96, '\0'));
  ExpectLoadError(Save(WithExternalWeight(TmpPath("abs.bin"), "0"), "abs.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"'fc.weight'", "not a relative path"});
}

TEST(OnnxModelTest, ExternalDataLeavingTheFolder) {
  ExpectLoadError(Save(WithExternalWeight("sub/../../w.bin", "0"), "dotdot.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"'fc.weight'", "not a relative path"});
  ExpectLoadError(Save(WithExternalWeight("..", "0"), "dotdot2.onnx"),
                  absl::StatusCode::kInvalidArgument, {"not a relative path"});
}

TEST(OnnxModelTest, ExternalDataThroughASymlinkOutOfTheFolder) {
  // The test binary lies outside the temporary folder the model is in.
  ASSERT_EQ(symlink("/proc/self/exe", TmpPath("link_out.bin").c_str()), 0);
  ExpectLoadError(Save(WithExternalWeight("link_out.bin", "0"), "link_out.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"'fc.weight'", "outside the model's folder"});
}

TEST(OnnxModelTest, ExternalDataOffsetBeyondTheFile) {
  WriteFile(TmpPath("short.bin"), std::string(96, '\0'));
  ExpectLoadError(Save(WithExternalWeight("short.bin", "1000"), "offset.onnx"),
                  absl::StatusCode::kInvalidArgument,
                  {"'fc.weight'", "offset 1000", "outside 'short.bin'"});
  ExpectLoadError(Save(WithExternalWeight("short.bin", "-5"), "neg_offset.onnx"),
                  absl::StatusCode::kInvalidArgument, {"'-5'"});
  ExpectLoadError(Save(WithExternalWeight("short.bin", "8"), "short_read.onnx"),
                  absl::StatusCode::kInvalidArgument, {"88 bytes", "needs 96"});
}

TEST(OnnxModelTest, ExternalDataFileMissing) {
  ExpectLoadError(Save(WithExternalWeight("absent.bin", "0"), "absent.onnx"),
                  absl::StatusCode::kNotFound, {"'fc.weight'"});
}

TEST(OnnxModelTest, BindInputUnknownName) {
  absl::StatusOr<std::unique_ptr<OnnxModel>> m =
      OnnxModel::Load(Save(ValidModel(), "bind.onnx"));
  ASSERT_TRUE(m.ok()) << m.status();
  absl::Status s = (*m)->BindInput("nope", HostArray(Shape({1}), {0.0f}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), AllOf(HasSubstr("'nope'"), HasSubstr("no input")));
}

}  // namespace
}  // namespace switchyard
