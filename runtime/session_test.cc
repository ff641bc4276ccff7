// runtime::Session on a built-in model (vgg11 at 32x32) and on a small ONNX
// file written here (x [batch, 4] -> Relu(x W) [batch, 3]): the same calls
// for both, replicas on the reference backend, and bad input.

#include "runtime/session.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "models/safetensors.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

void AddFloatInfo(::onnx::ValueInfoProto* info, const std::string& name,
                  const std::string& symbolic, int64_t fixed) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(::onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_param(symbolic);
  tensor->mutable_shape()->add_dim()->set_dim_value(fixed);
}

// y = Relu(x W), x [batch, 4], W [4, 3] with values of both signs.
std::string SmallModelBytes() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("session_test");
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  ::onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("small");
  AddFloatInfo(g.add_input(), "x", "batch", 4);
  AddFloatInfo(g.add_output(), "y", "batch", 3);
  ::onnx::TensorProto* w = g.add_initializer();
  w->set_name("W");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(3);
  for (int i = 0; i < 12; ++i) w->add_float_data(0.25f * static_cast<float>(i % 5) - 0.5f);
  ::onnx::NodeProto* matmul = g.add_node();
  matmul->set_op_type("MatMul");
  matmul->add_input("x");
  matmul->add_input("W");
  matmul->add_output("h");
  ::onnx::NodeProto* relu = g.add_node();
  relu->set_op_type("Relu");
  relu->add_input("h");
  relu->add_output("y");
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return bytes;
}

std::string SmallModelFile() {
  const std::string path = TempPath("session_test_small.onnx");
  const std::string bytes = SmallModelBytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  EXPECT_TRUE(out.good()) << path;
  return path;
}

Device Dev(const std::string& name) { return *Device::Parse(name); }

// A seeded-looking input of `shape` on `device`, the same every call.
Tensor Input(const Shape& shape, const Device& device) {
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.3f;
  }
  BackendDevice* target = *BackendRegistry::Global().GetDevice(device);
  return *Tensor::FromBytes(shape, DType::kFloat32, values.data(),
                            values.size() * sizeof(float), *target);
}

std::vector<float> Floats(const Tensor& t) {
  absl::StatusOr<std::vector<char>> bytes = t.ToBytes();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  std::vector<float> values(bytes->size() / sizeof(float));
  std::memcpy(values.data(), bytes->data(), bytes->size());
  return values;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b, float tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], tolerance * (1.0f + std::abs(b[i]))) << "element " << i;
  }
}

TEST(SessionTest, DeclaredInputsAndOutputsOfBothKinds) {
  absl::StatusOr<std::unique_ptr<Session>> vgg = Session::Open("vgg11");
  ASSERT_TRUE(vgg.ok()) << vgg.status();
  EXPECT_TRUE((*vgg)->builtin());
  ASSERT_EQ((*vgg)->inputs().size(), 1u);
  EXPECT_EQ((*vgg)->inputs()[0].ToString(), "input [batch, 3, height, width] float32");
  ASSERT_EQ((*vgg)->outputs().size(), 1u);
  EXPECT_EQ((*vgg)->outputs()[0].name, "output");
  absl::StatusOr<std::vector<InputSpec>> vgg_specs = (*vgg)->InputSpecs(2);
  ASSERT_TRUE(vgg_specs.ok()) << vgg_specs.status();
  EXPECT_EQ((*vgg_specs)[0].shape, Shape({2, 3, 224, 224}));
  vgg_specs = (*vgg)->InputSpecs(std::nullopt, {{"", Shape({1, 3, 32, 32})}});
  ASSERT_TRUE(vgg_specs.ok()) << vgg_specs.status();
  EXPECT_EQ((*vgg_specs)[0].shape, Shape({1, 3, 32, 32}));
  EXPECT_EQ((*vgg)->InputSpecs(1, {{"ids", Shape({1, 3, 32, 32})}}).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<std::unique_ptr<Session>> file = Session::Open(SmallModelFile());
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_FALSE((*file)->builtin());
  ASSERT_EQ((*file)->inputs().size(), 1u);
  EXPECT_EQ((*file)->inputs()[0].ToString(), "x [batch, 4] float32");
  EXPECT_EQ((*file)->outputs()[0].name, "y");
  EXPECT_EQ((*file)->OutputNames(), std::vector<std::string>({"y"}));
  absl::StatusOr<std::vector<InputSpec>> file_specs = (*file)->InputSpecs(5);
  ASSERT_TRUE(file_specs.ok()) << file_specs.status();
  EXPECT_EQ((*file_specs)[0].shape, Shape({5, 4}));

  absl::StatusOr<std::vector<ValueInfo>> declared =
      Session::DeclaredInputs(SmallModelFile());
  ASSERT_TRUE(declared.ok()) << declared.status();
  EXPECT_EQ((*declared)[0].ToString(), "x [batch, 4] float32");
}

// What a user asked for (--input_shape's strings, a batch), for either kind
// of model: the built-in model's own size by default, checked against the
// declared inputs either way.
TEST(SessionTest, InputSpecsForARequestOfBothKinds) {
  absl::StatusOr<std::unique_ptr<Session>> vgg = Session::Open("vgg11");
  ASSERT_TRUE(vgg.ok()) << vgg.status();
  InputRequest request;
  absl::StatusOr<std::vector<InputSpec>> specs = (*vgg)->InputSpecsFor(request, Device::Cpu());
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].shape, Shape({1, 3, 224, 224}));
  request.batch = 4;
  specs = (*vgg)->InputSpecsFor(request, Device::Cpu());
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].shape, Shape({4, 3, 224, 224}));
  request.shapes = {"2x3x32x48"};
  specs = (*vgg)->InputSpecsFor(request, Device::Cpu());
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].shape, Shape({2, 3, 32, 48}));
  request.shapes = {"2x4x32x32"};  // VGG takes 3 channels
  EXPECT_EQ((*vgg)->InputSpecsFor(request, Device::Cpu()).status().code(),
            absl::StatusCode::kInvalidArgument);
  request.shapes = {"ids:2x3x32x32"};  // no such input
  EXPECT_EQ((*vgg)->InputSpecsFor(request, Device::Cpu()).status().code(),
            absl::StatusCode::kInvalidArgument);
  request.shapes.clear();
  request.batch = 0;
  EXPECT_EQ((*vgg)->InputSpecsFor(request, Device::Cpu()).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<std::unique_ptr<Session>> file = Session::Open(SmallModelFile());
  ASSERT_TRUE(file.ok()) << file.status();
  request = InputRequest();
  request.batch = 3;
  specs = (*file)->InputSpecsFor(request, Device::Cpu());
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].shape, Shape({3, 4}));
  EXPECT_EQ((*specs)[0].dtype, DType::kFloat32);
  // A whole shape given replaces the declared one, fixed dimensions too (as
  // for an image model run at another size); its rank must match.
  request.shapes = {"x:2x5"};  // x is [batch, 4]
  specs = (*file)->InputSpecsFor(request, Device::Cpu());
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].shape, Shape({2, 5}));
  request.shapes = {"x:2x4x1"};
  EXPECT_EQ((*file)->InputSpecsFor(request, Device::Cpu()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SessionTest, RunsAModelFileAndItsReplica) {
  SessionOptions options;
  options.device = Dev("cpu:0");
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(SmallModelFile(), options);
  ASSERT_TRUE(s.ok()) << s.status();
  const Tensor x = Input(Shape({2, 4}), Dev("cpu:0"));
  absl::StatusOr<std::vector<Tensor>> y = (*s)->Run({x});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  EXPECT_EQ((*y)[0].shape(), Shape({2, 3}));
  // Relu(x W) by hand.
  const std::vector<float> got = Floats((*y)[0]);
  const std::vector<float> xs = Floats(x);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) {
        sum += xs[r * 4 + k] * (0.25f * static_cast<float>((k * 3 + c) % 5) - 0.5f);
      }
      EXPECT_NEAR(got[r * 3 + c], sum > 0 ? sum : 0, 1e-5) << r << "," << c;
    }
  }
  EXPECT_TRUE((*s)->supports_staged_run());
  EXPECT_GE((*s)->run_stats().runs, 1);

  absl::StatusOr<std::unique_ptr<Session>> replica = (*s)->Replica(Dev("ref:0"));
  ASSERT_TRUE(replica.ok()) << replica.status();
  EXPECT_EQ((*replica)->device(), Dev("ref:0"));
  absl::StatusOr<std::vector<Tensor>> again = (*replica)->Run({Input(Shape({2, 4}), Dev("ref:0"))});
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectNear(Floats((*again)[0]), got, 1e-6f);
}

TEST(SessionTest, RunsABuiltinModelAndItsReplica) {
  SessionOptions options;
  options.device = Dev("cpu:0");
  options.seed = 3;
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create("vgg11", options);
  ASSERT_TRUE(s.ok()) << s.status();
  const Shape shape({1, 3, 32, 32});
  absl::StatusOr<std::vector<Tensor>> y = (*s)->Run({Input(shape, Dev("cpu:0"))});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  EXPECT_EQ((*y)[0].shape(), Shape({1, 1000}));
  // No staged run: zero counts, and nothing to describe.
  EXPECT_FALSE((*s)->supports_staged_run());
  EXPECT_EQ((*s)->run_stats().runs, 0);
  EXPECT_EQ((*s)->DescribeRun({Input(shape, Dev("cpu:0"))}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*s)->SetMaxLoopIterations(5).code(), absl::StatusCode::kFailedPrecondition);

  // The replica takes this model's seeded weights: the same scores.
  absl::StatusOr<std::unique_ptr<Session>> replica = (*s)->Replica(Dev("ref:0"));
  ASSERT_TRUE(replica.ok()) << replica.status();
  absl::StatusOr<std::vector<Tensor>> again = (*replica)->Run({Input(shape, Dev("ref:0"))});
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectNear(Floats((*again)[0]), Floats((*y)[0]), 1e-3f);
}

TEST(SessionTest, ReplicateSplitsTheBatchOverTwoDevices) {
  SessionOptions options;
  options.device = Dev("ref:0");
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(SmallModelFile(), options);
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<std::unique_ptr<ReplicaSet>> replicas =
      (*s)->Replicate({Dev("ref:0"), Dev("ref:1")});
  ASSERT_TRUE(replicas.ok()) << replicas.status();
  std::vector<float> values(12);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 5.0f;
  absl::StatusOr<ReplicaRun> run = (*replicas)->Run({HostArray(Shape({3, 4}), values)});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->outputs[0].shape, Shape({3, 3}));
  EXPECT_EQ(run->samples, std::vector<int64_t>({2, 1}));
}

// A model file takes weights over its initializers of the same names, as
// `run --weights` does (fine-tuned values for an exported graph).
TEST(SessionTest, AModelFileTakesWeightsByName) {
  absl::StatusOr<std::unique_ptr<Session>> plain = Session::Create(SmallModelFile(), {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<std::map<std::string, HostArray>> state = (*plain)->module().StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  ASSERT_EQ(state->count("W"), 1u);
  HostArray& w = state->at("W");
  for (float& v : w.mutable_values()) v = -v;  // relu now keeps what it dropped
  SafetensorsFile negated;
  negated.tensors = *state;
  const std::string path = TempPath("session_test_negated.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, negated).ok());
  SessionOptions with_weights;
  with_weights.weights = path;
  absl::StatusOr<std::unique_ptr<Session>> loaded =
      Session::Create(SmallModelFile(), with_weights);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Tensor x = *Tensor::FromVector(Shape({1, 4}), {1, 2, 3, 4}, Device::Cpu(),
                                       BackendRegistry::Global());
  const std::vector<float> a = *(*(*plain)->Run({x}))[0].ToVector();
  const std::vector<float> b = *(*(*loaded)->Run({x}))[0].ToVector();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i] == 0 || b[i] == 0) << i;  // relu(h) and relu(-h)
    EXPECT_GT(a[i] + b[i], 0) << i;
  }
}

TEST(SessionTest, RefusesBadInput) {
  absl::StatusOr<std::unique_ptr<Session>> unknown = Session::Open("resnet50");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown model 'resnet50'"));

  absl::StatusOr<std::unique_ptr<Session>> missing = Session::Open(TempPath("none.onnx"));
  EXPECT_FALSE(missing.ok());

  SessionOptions missing_weights;
  missing_weights.weights = TempPath("none.safetensors");
  absl::StatusOr<std::unique_ptr<Session>> file =
      Session::Create(SmallModelFile(), missing_weights);
  EXPECT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("none.safetensors"));

  SessionOptions bad_limit;
  bad_limit.max_loop_iterations = 0;
  EXPECT_EQ(Session::Create(SmallModelFile(), bad_limit).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<std::unique_ptr<Session>> bytes =
      Session::OpenBytes(SmallModelBytes(), "the model bytes");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE((*bytes)->from_bytes());
  absl::StatusOr<std::unique_ptr<Session>> replica = (*bytes)->Replica(Dev("ref:0"));
  EXPECT_EQ(replica.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(replica.status().message(), HasSubstr("from its file"));
  EXPECT_EQ((*bytes)->Replicate({Dev("cpu:0"), Dev("ref:0")}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
