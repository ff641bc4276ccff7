// End-to-end bad input through the public API the command line uses:
// weight files that do not fit the model, corrupt files on disk, inputs of
// the wrong shape or dtype, bad device strings and devices no backend owns.
// Each case checks the code and that the message says what and where; the
// parsers' own edge cases are in models/safetensors_test.cc and
// models/npy_test.cc.

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/module.h"
#include "models/npy.h"
#include "models/safetensors.h"
#include "models/vgg.h"

namespace switchyard {
namespace {

using nn::Vgg;
using nn::VggConfig;
using ::testing::HasSubstr;

constexpr int64_t P = VggConfig::kPool;

VggConfig Small() {
  VggConfig c;
  c.layers = {8, P, 16, P};
  c.avgpool = 2;
  c.hidden = 16;
  c.num_classes = 5;
  return c;
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "bad_input_" + name;  // TempDir ends in /
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(file.good()) << path;
}

std::vector<float> Pattern(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = NormalSample(rng, 1.0f);
  return v;
}

// What `switchyard run --weights=PATH` does: read the file, load it.
absl::Status LoadWeights(Module& model, const std::string& path) {
  absl::StatusOr<SafetensorsFile> file = ReadSafetensors(path);
  if (!file.ok()) return file.status();
  return model.LoadStateDict(file->tensors);
}

// A model with weights and one input; checks it still runs and gives the
// same logits as before whatever was done to it in between.
class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = std::make_unique<Vgg>(Small());
    ASSERT_TRUE(model_->InitializeTorchvisionStyle(7).ok());
    absl::StatusOr<Tensor> x =
        Tensor::FromVector({2, 3, 32, 32}, Pattern(6144, 1), Device::Cpu(),
                           BackendRegistry::Global());
    ASSERT_TRUE(x.ok());
    input_ = *x;
    expected_ = Logits();
    ASSERT_EQ(expected_.size(), 10u);
  }

  std::vector<float> Logits() {
    absl::StatusOr<Tensor> y = model_->Forward(input_);
    EXPECT_TRUE(y.ok()) << y.status();
    if (!y.ok()) return {};
    absl::StatusOr<std::vector<float>> v = y->ToVector();
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::vector<float>();
  }

  void ExpectModelUnchanged() {
    EXPECT_EQ(model_->Placement().ToString(), "cpu:0");
    EXPECT_EQ(Logits(), expected_);
  }

  // The model's own state dict written to a file after `edit`.
  std::string WriteEdited(const std::string& name,
                          void (*edit)(std::map<std::string, HostArray>&)) {
    absl::StatusOr<std::map<std::string, HostArray>> state =
        model_->StateDict();
    EXPECT_TRUE(state.ok()) << state.status();
    SafetensorsFile file;
    file.tensors = *state;
    for (auto& [n, array] : file.tensors) {
      for (float& v : array.mutable_values()) v = v * 2 + 1;  // changes logits
    }
    edit(file.tensors);
    const std::string path = TempPath(name);
    absl::Status written = WriteSafetensors(path, file);
    EXPECT_TRUE(written.ok()) << written;
    return path;
  }

  std::unique_ptr<Vgg> model_;
  Tensor input_;
  std::vector<float> expected_;
};

// ---------------------------------------------------------------------------
// Weight files that do not fit the model

TEST_F(BadInputTest, WeightsWithAMissingParameter) {
  const std::string path = WriteEdited(
      "missing.safetensors", [](auto& t) { t.erase("features.3.bias"); });
  absl::Status status = LoadWeights(*model_, path);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("cannot load state dict into VGG"));
  EXPECT_THAT(status.message(),
              HasSubstr("missing parameters: features.3.bias"));
  EXPECT_THAT(status.message(),
              HasSubstr("named as in PyTorch's state_dict()"));
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, WeightsWithAnUnexpectedParameter) {
  const std::string path = WriteEdited("unexpected.safetensors", [](auto& t) {
    t["features.1.weight"] = HostArray{Shape({8}), std::vector<float>(8, 1.0f)};
    t["num_batches_tracked"] = HostArray{Shape(), {3}};
  });
  absl::Status status = LoadWeights(*model_, path);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(
      status.message(),
      HasSubstr(
          "unexpected parameters: features.1.weight, num_batches_tracked"));
  EXPECT_THAT(status.message(), ::testing::Not(HasSubstr("missing")));
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, WeightsWithAWrongShape) {
  const std::string path = WriteEdited("shape.safetensors", [](auto& t) {
    // A transposed classifier weight, as from a hand-made export.
    t["classifier.6.weight"] =
        HostArray{Shape({16, 5}), std::vector<float>(80, 0.5f)};
  });
  absl::Status status = LoadWeights(*model_, path);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(
      status.message(),
      HasSubstr("classifier.6.weight (expected [5, 16], file has [16, 5])"));
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, WeightsForAnotherModelListEveryProblem) {
  // The weights of a VGG with 10 classes and 32 channels.
  VggConfig other = Small();
  other.layers = {8, P, 32, P};
  other.num_classes = 10;
  Vgg wrong(other);
  ASSERT_TRUE(wrong.InitializeTorchvisionStyle(1).ok());
  SafetensorsFile file;
  file.tensors = *wrong.StateDict();
  const std::string path = TempPath("other_model.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, file).ok());
  absl::Status status = LoadWeights(*model_, path);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  const std::string message(status.message());
  EXPECT_THAT(message, HasSubstr("features.3.weight (expected [16, 8, 3, 3], "
                                 "file has [32, 8, 3, 3])"));
  EXPECT_THAT(message,
              HasSubstr("features.3.bias (expected [16], file has [32])"));
  EXPECT_THAT(message, HasSubstr("classifier.0.weight (expected [16, 64], "
                                 "file has [16, 128])"));
  EXPECT_THAT(message,
              HasSubstr("classifier.6.bias (expected [5], file has [10])"));
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, GoodWeightsLoadAndChangeTheLogits) {
  const std::string path = WriteEdited("good.safetensors", [](auto&) {});
  ASSERT_TRUE(LoadWeights(*model_, path).ok());
  EXPECT_NE(Logits(), expected_);
}

// ---------------------------------------------------------------------------
// Corrupt files on disk

TEST_F(BadInputTest, TruncatedSafetensorsFileNamesThePath) {
  SafetensorsFile file;
  file.tensors = *model_->StateDict();
  const std::string bytes = SerializeSafetensors(file);
  const std::string path = TempPath("truncated.safetensors");
  WriteBytes(path, bytes.substr(0, bytes.size() - 100));
  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument)
      << read.status();
  EXPECT_THAT(read.status().message(), HasSubstr(path + ": "));
  EXPECT_THAT(read.status().message(), HasSubstr("data section"));

  absl::Status loaded = LoadWeights(*model_, path);
  EXPECT_EQ(loaded.code(), absl::StatusCode::kInvalidArgument);
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, SafetensorsHeaderThatIsNotJson) {
  const std::string header = "{\"features.0.weight\": [1, 2";  // cut short
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>(header.size() >> (8 * i)));
  bytes += header;
  const std::string path = TempPath("not_json.safetensors");
  WriteBytes(path, bytes);
  absl::StatusOr<SafetensorsFile> read = ReadSafetensors(path);
  ASSERT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument)
      << read.status();
  EXPECT_THAT(read.status().message(),
              HasSubstr(path + ": header is not valid JSON"));
}

TEST_F(BadInputTest, MissingWeightsFileIsNotFound) {
  const std::string path = TempPath("does_not_exist.safetensors");
  absl::Status status = LoadWeights(*model_, path);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(status.message(), HasSubstr(path));
  ExpectModelUnchanged();
}

// ---------------------------------------------------------------------------
// Inputs

TEST_F(BadInputTest, InputFileOfWrongRankOrChannels) {
  const std::string rank3 = TempPath("rank3.npy");
  ASSERT_TRUE(
      WriteNpy(rank3, HostArray{Shape({3, 32, 32}), Pattern(3072, 2)}).ok());
  const std::string gray = TempPath("gray.npy");
  ASSERT_TRUE(
      WriteNpy(gray, HostArray{Shape({1, 1, 32, 32}), Pattern(1024, 2)}).ok());

  for (const auto& [path, got] :
       std::vector<std::pair<std::string, std::string>>{
           {rank3, "got [3, 32, 32] (rank 3)"},
           {gray, "got [1, 1, 32, 32] (1 channel)"}}) {
    absl::StatusOr<HostArray> array = ReadNpy(path);
    ASSERT_TRUE(array.ok()) << array.status();
    absl::StatusOr<Tensor> x =
        Tensor::FromVector(array->shape, array->values(), Device::Cpu(),
                           BackendRegistry::Global());
    ASSERT_TRUE(x.ok());
    absl::StatusOr<Tensor> y = model_->Forward(*x);
    ASSERT_FALSE(y.ok()) << path;
    EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(y.status().message(),
                HasSubstr("VGG expects images [N, 3, H, W]"));
    EXPECT_THAT(y.status().message(), HasSubstr(got));
  }
  ExpectModelUnchanged();
}

// An .npy file of `descr` with `data` for shape (2,), as NumPy lays it out.
std::string NpyBytes(const std::string& descr, const std::string& data) {
  std::string header = absl::StrCat(
      "{'descr': '", descr, "', 'fortran_order': False, 'shape': (2,), }");
  // Pad so that magic, version, length and header fill 64-byte blocks.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  return bytes + header + data;
}

TEST_F(BadInputTest, NpyOfComplexNumbersIsUnimplemented) {
  const float values[4] = {1.5, -2.0, 0, 1};  // two complex64
  const std::string path = TempPath("complex64.npy");
  WriteBytes(path,
             NpyBytes("<c8", std::string(reinterpret_cast<const char*>(values),
                                         sizeof(values))));
  absl::StatusOr<HostArray> array = ReadNpy(path);
  ASSERT_EQ(array.status().code(), absl::StatusCode::kUnimplemented)
      << array.status();
  EXPECT_THAT(array.status().message(), HasSubstr(path));
  EXPECT_THAT(array.status().message(),
              HasSubstr("dtype descr '<c8' is not supported; the supported "
                        "ones are '<f4' (float32)"));
}

// A float64 file reads as float64 (no silent cast); the float32 model then
// refuses it at compile time, naming the dtypes.
TEST_F(BadInputTest, Float64InputIsReadAsItIsAndRefusedByAFloat32Model) {
  const double values[2] = {1.5, -2.0};
  const std::string path = TempPath("float64.npy");
  WriteBytes(path,
             NpyBytes("<f8", std::string(reinterpret_cast<const char*>(values),
                                         sizeof(values))));
  absl::StatusOr<HostArray> array = ReadNpy(path);
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_EQ(array->dtype, DType::kFloat64);
  EXPECT_EQ(array->ToFloats(), std::vector<float>({1.5f, -2.0f}));

  std::vector<double> pixels(2 * 3 * 32 * 32, 0.25);
  absl::StatusOr<Tensor> x = Tensor::FromValues<double>(
      Shape({2, 3, 32, 32}), pixels,
      **BackendRegistry::Global().GetDevice(Device::Cpu()));
  ASSERT_TRUE(x.ok()) << x.status();
  absl::StatusOr<Tensor> y = model_->Forward(*x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument)
      << y.status();
  EXPECT_THAT(y.status().message(), HasSubstr("features.0/conv2d"));
  EXPECT_THAT(y.status().message(), HasSubstr("float64"));
  ExpectModelUnchanged();
}

TEST_F(BadInputTest, NpyThatIsATextFile) {
  const std::string path = TempPath("text.npy");
  WriteBytes(path, "1.0 2.0 3.0\n");
  absl::StatusOr<HostArray> array = ReadNpy(path);
  ASSERT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument)
      << array.status();
  EXPECT_THAT(array.status().message(), HasSubstr(path + ": not a .npy file"));
}

// ---------------------------------------------------------------------------
// Devices

TEST(DeviceStringTest, BadDeviceStringsAreInvalidArgument) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"", "device type is empty"},
           {"CUDA:0", "did you mean 'cuda:0'?"},
           {"cuda:", "the index after ':' is missing"},
           {"cuda:-1", "non-negative decimal number"},
           {"cuda:01", "leading zeros"},
           {"cuda:1024", "larger than 1023"},
           {"cuda:99999999999999999999", "larger than 1023"},
           {"gpu 0", "may contain only lowercase letters, digits and '_'"},
           {"cuda:0:1", "non-negative decimal number"},
           {"0:cuda", "must start with a lowercase letter"},
       }) {
    absl::StatusOr<Device> d = Device::Parse(c.text);
    ASSERT_FALSE(d.ok()) << "'" << c.text << "' parsed as " << *d;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(d.status().message(), HasSubstr(c.says)) << c.text;
  }
  // The accepted spellings, for contrast.
  EXPECT_EQ(Device::Parse("cuda")->ToString(), "cuda:0");
  EXPECT_EQ(Device::Parse("my_plugin2:7")->ToString(), "my_plugin2:7");
}

TEST_F(BadInputTest, DeviceTypeWithoutABackendIsNotFound) {
  const Device cuda = *Device::Parse("cuda:0");
  // Only //backends/cpu is linked into this test.
  EXPECT_EQ(BackendRegistry::Global().Types(), std::vector<std::string>{"cpu"});

  absl::Status moved = model_->To(cuda);
  ASSERT_EQ(moved.code(), absl::StatusCode::kNotFound) << moved;
  EXPECT_THAT(moved.message(),
              HasSubstr("no backend is registered for device type 'cuda'"));
  EXPECT_THAT(moved.message(), HasSubstr("registered types: [cpu]"));
  EXPECT_THAT(moved.message(), HasSubstr("Link the backend's library"));

  absl::StatusOr<Tensor> x =
      Tensor::FromVector({1}, {1.0f}, cuda, BackendRegistry::Global());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kNotFound) << x.status();

  // Compiling for an input on cuda:0 fails before anything runs.
  absl::StatusOr<ExecutablePlan*> plan =
      model_->Compiled(Shape({2, 3, 32, 32}), cuda);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument)
      << plan.status();
  EXPECT_THAT(plan.status().message(), HasSubstr("different devices"));
  EXPECT_THAT(plan.status().message(),
              HasSubstr("'input' [2, 3, 32, 32] on cuda:0"));

  absl::Status bad_index = model_->To(*Device::Parse("cpu:1"));
  EXPECT_EQ(bad_index.code(), absl::StatusCode::kUnavailable) << bad_index;
  EXPECT_THAT(bad_index.message(), HasSubstr("device cpu:1 is not available"));

  ExpectModelUnchanged();
}

}  // namespace
}  // namespace switchyard
