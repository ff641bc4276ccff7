// Golden tests: every op case, a reduced VGG and a conv + batch-norm + relu
// model with a torchvision state dict against PyTorch's outputs, on every
// available device. Fixtures are made by tools/make_goldens.py (Debian's
// python3-torch) and committed, so this test needs no PyTorch.
//
// Tolerance: per element |got - want| <= 1e-5 + 1e-4 * |want| for single
// ops; <= 1e-4 * max|want| for the models (float32 sums in another order).

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/compile.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/batch_norm.h"
#include "models/conv2d.h"
#include "models/parameterless_layers.h"
#include "models/safetensors.h"
#include "models/sequential.h"
#include "models/vgg.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace {

constexpr char kDataDir[] = "tests/golden/data";

std::vector<std::string> OpCases() {
  std::vector<std::string> cases;
  for (const auto& entry : std::filesystem::directory_iterator(kDataDir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StrContains(name, "__")) cases.push_back(name);
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

// The JSON attributes the script wrote, as graph attributes.
absl::StatusOr<AttrMap> ParseAttrs(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("bad attrs JSON: ", text));
  }
  AttrMap attrs;
  for (auto it = json.begin(); it != json.end(); ++it) {
    const nlohmann::json& v = it.value();
    if (v.is_boolean()) {
      attrs.Set(it.key(), v.get<bool>());
    } else if (v.is_number_integer()) {
      attrs.Set(it.key(), v.get<int64_t>());
    } else if (v.is_number_float()) {
      attrs.Set(it.key(), v.get<double>());
    } else if (v.is_array()) {
      attrs.Set(it.key(), v.get<std::vector<int64_t>>());
    } else {
      return absl::InvalidArgumentError(absl::StrCat("bad attr ", it.key()));
    }
  }
  return attrs;
}

Tensor OnDevice(const HostArray& array, const Device& device) {
  absl::StatusOr<BackendDevice*> backend_device =
      BackendRegistry::Global().GetDevice(device);
  EXPECT_TRUE(backend_device.ok()) << backend_device.status();
  absl::StatusOr<Tensor> t =
      Tensor::FromBytes(array.shape, array.dtype, array.bytes.data(),
                        array.bytes.size(), **backend_device);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

class GoldenOpTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GoldenOpTest, MatchesPyTorch) {
  const auto& [file, device_name] = GetParam();
  const Device device = *Device::Parse(device_name);
  absl::StatusOr<SafetensorsFile> golden =
      ReadSafetensors(absl::StrCat(kDataDir, "/", file));
  ASSERT_TRUE(golden.ok()) << golden.status();
  const auto& t = golden->tensors;
  absl::StatusOr<AttrMap> attrs = ParseAttrs(golden->metadata.at("attrs"));
  ASSERT_TRUE(attrs.ok()) << attrs.status();

  Graph graph;
  std::vector<Tensor> inputs;
  std::vector<ValueId> operands;
  for (const char* name : {"input", "input0", "input1"}) {
    if (t.count(name) == 0) continue;
    operands.push_back(graph.AddInput(name, t.at(name).shape, device));
    inputs.push_back(OnDevice(t.at(name), device));
  }
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    if (t.count(name) > 0) {
      operands.push_back(graph.AddConstant(name, OnDevice(t.at(name), device)));
    }
  }
  graph.AddOutput(graph.AddNode(golden->metadata.at("op"), "golden", operands, *attrs));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status();

  const HostArray& want = t.at("output");
  ASSERT_EQ((*out)[0].shape(), want.shape);
  std::vector<float> got = *(*out)[0].ToVector();
  const absl::Span<const float> expected = want.values();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], expected[i], 1e-5 + 1e-4 * std::abs(expected[i]))
        << file << " element " << i;
  }
}

std::vector<std::string> DeviceNames() {
  std::vector<std::string> names;
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    names.push_back(d.ToString());
  }
  return names;
}

std::string CaseName(
    const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  std::string name = absl::StrCat(std::get<0>(info.param), "_on_",
                                  std::get<1>(info.param));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, GoldenOpTest,
                         ::testing::Combine(::testing::ValuesIn(OpCases()),
                                            ::testing::ValuesIn(DeviceNames())),
                         CaseName);

class GoldenVggTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenVggTest, ReducedVggMatchesPyTorchEndToEnd) {
  const Device device = *Device::Parse(GetParam());
  absl::StatusOr<SafetensorsFile> golden =
      ReadSafetensors(absl::StrCat(kDataDir, "/vgg_small.safetensors"));
  ASSERT_TRUE(golden.ok()) << golden.status();
  const auto& meta = golden->metadata;
  nn::VggConfig config;
  for (const auto& v : nlohmann::json::parse(meta.at("cfg"))) {
    config.layers.push_back(v.is_string() ? nn::VggConfig::kPool : v.get<int64_t>());
  }
  config.hidden = std::stoll(meta.at("hidden"));
  config.num_classes = std::stoll(meta.at("num_classes"));
  config.avgpool = nlohmann::json::parse(meta.at("avgpool"))[0].get<int64_t>();

  std::map<std::string, HostArray> state = golden->tensors;
  const HostArray input = state.at("input");
  const HostArray want = state.at("output");
  state.erase("input");
  state.erase("output");

  nn::Vgg vgg(config);
  ASSERT_TRUE(vgg.To(device).ok());
  absl::Status loaded = vgg.LoadStateDict(state);
  ASSERT_TRUE(loaded.ok()) << loaded;
  absl::StatusOr<Tensor> logits = vgg.Forward(OnDevice(input, device));
  ASSERT_TRUE(logits.ok()) << logits.status();
  ASSERT_EQ(logits->shape(), want.shape);
  std::vector<float> got = *logits->ToVector();
  float scale = 0;
  for (float v : want.values()) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want.values()[i], 1e-4 * scale) << "logit " << i;
  }
  // A second call reuses the cached plan and gives the same answer.
  absl::StatusOr<Tensor> again = vgg.Forward(OnDevice(input, device));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again->ToVector(), got);
}

INSTANTIATE_TEST_SUITE_P(AllDevices, GoldenVggTest,
                         ::testing::ValuesIn(DeviceNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

// torchvision's vgg*_bn layout: a child "features" holding conv, bn, relu,
// conv, bn, relu, so the state dict names match PyTorch's.
class ConvBnSmall : public Module {
 public:
  ConvBnSmall() {
    auto features = std::make_unique<nn::Sequential>();
    nn::Conv2dOptions first;
    first.pad_h = first.pad_w = 1;
    first.bias = false;
    features->Add(std::make_unique<nn::Conv2d>(3, 8, 3, 3, first));
    features->Add(std::make_unique<nn::BatchNorm2d>(8, 1e-5));
    features->Add(std::make_unique<nn::ReLU>());
    nn::Conv2dOptions second;
    second.pad_h = second.pad_w = 1;
    second.stride_h = second.stride_w = 2;
    features->Add(std::make_unique<nn::Conv2d>(8, 16, 3, 3, second));
    features->Add(std::make_unique<nn::BatchNorm2d>(16, 1e-3));
    features->Add(std::make_unique<nn::ReLU>());
    features_ = RegisterChild("features", std::move(features));
  }
  std::string type_name() const override { return "ConvBnSmall"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override {
    return features_->Trace(graph, x,
                            path.empty() ? "features" : path + ".features");
  }

 private:
  Module* features_;
};

int CountOps(const Graph& graph, const std::string& op) {
  int n = 0;
  for (const Node& node : graph.nodes()) n += node.op == op ? 1 : 0;
  return n;
}

class GoldenConvBnTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenConvBnTest, TorchvisionStateDictMatchesPyTorchFoldedOrNot) {
  const Device device = *Device::Parse(GetParam());
  // The file as torch saved it, num_batches_tracked (I64) included, loaded
  // straight from disk onto the device.
  const std::string path = absl::StrCat(kDataDir, "/conv_bn_small.safetensors");
  absl::StatusOr<SafetensorsFile> golden = ReadSafetensors(path);
  ASSERT_TRUE(golden.ok()) << golden.status();
  EXPECT_EQ(golden->metadata.at("eps"), "[1e-05, 0.001]");
  const HostArray& input = golden->tensors.at("input");
  const HostArray& want = golden->tensors.at("output");
  std::map<std::string, HostArray> state = golden->tensors;
  state.erase("input");
  state.erase("output");
  ASSERT_EQ(state.at("features.1.num_batches_tracked").dtype, DType::kInt64);

  ConvBnSmall model;
  ASSERT_TRUE(model.To(device).ok());
  absl::Status loaded = model.LoadStateDict(state);
  ASSERT_TRUE(loaded.ok()) << loaded;
  absl::StatusOr<std::map<std::string, HostArray>> saved = model.StateDict();
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->at("features.4.num_batches_tracked").dtype, DType::kInt64);
  EXPECT_EQ(saved->at("features.4.num_batches_tracked").ElementAsDouble(0), 3);
  EXPECT_EQ(saved->at("features.4.running_var").bytes,
            state.at("features.4.running_var").bytes);

  float scale = 0;
  for (float v : want.values()) scale = std::max(scale, std::abs(v));
  auto expect_golden = [&](const Tensor& got_tensor, const char* what) {
    ASSERT_EQ(got_tensor.shape(), want.shape) << what;
    const std::vector<float> got = *got_tensor.ToVector();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want.values()[i], 1e-4 * scale)
          << what << " element " << i;
    }
  };

  // Module::Forward: the default pipeline folds both batch norms.
  const Tensor x = OnDevice(input, device);
  absl::StatusOr<Tensor> y = model.Forward(x);
  ASSERT_TRUE(y.ok()) << y.status();
  expect_golden(*y, "folded");
  absl::StatusOr<ExecutablePlan*> plan = model.Compiled(input.shape, device);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(CountOps((*plan)->graph(), "batch_norm"), 0);
  EXPECT_EQ(CountOps((*plan)->graph(), "conv2d"), 2);

  // The same graph with folding off runs batch_norm on the device.
  absl::StatusOr<Graph> graph = model.TraceGraph(input.shape, device);
  ASSERT_TRUE(graph.ok()) << graph.status();
  CompileOptions options;
  options.fold_batch_norm = false;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> unfolded =
      Compile(*std::move(graph), options);
  ASSERT_TRUE(unfolded.ok()) << unfolded.status();
  EXPECT_EQ(CountOps((*unfolded)->graph(), "batch_norm"), 2);
  absl::StatusOr<std::vector<Tensor>> out = (*unfolded)->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  expect_golden((*out)[0], "unfolded");

  // The state dict written back as .safetensors (I64 included) and loaded
  // from the mapped file gives the same model.
  const std::string weights = absl::StrCat(::testing::TempDir(), "/conv_bn_",
                                           device.ToString(), ".safetensors");
  SafetensorsFile file;
  file.tensors = *saved;
  ASSERT_TRUE(WriteSafetensors(weights, file).ok());
  ConvBnSmall from_file;
  ASSERT_TRUE(from_file.To(device).ok());
  absl::Status mapped = from_file.LoadSafetensors(weights);
  ASSERT_TRUE(mapped.ok()) << mapped;
  absl::StatusOr<Tensor> again = from_file.Forward(x);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again->ToVector(), *y->ToVector());
}

INSTANTIATE_TEST_SUITE_P(AllDevices, GoldenConvBnTest,
                         ::testing::ValuesIn(DeviceNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace switchyard
