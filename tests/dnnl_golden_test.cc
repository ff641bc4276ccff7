// Goldens on the oneDNN backend plugin's dnnl:0, loaded into the global
// registry the way `switchyard --plugin=...` loads it: PyTorch's outputs for
// every single-op golden the device runs (tests/golden/data), the reduced
// VGG and the conv + batch-norm model of tests/golden_test.cc, and the
// ONNX exports of VGG11-BN, ResNet-18 and ResNet-50 (tests/onnx_models),
// each compiled whole onto dnnl:0 with strict placement, so every node of
// those networks runs in oneDNN partitions.
//
// Tolerances are golden_test.cc's and onnx_models_test.cc's: per element
// 1e-5 + 1e-4 * |want| for single ops, 1e-4 * max |want| for models.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/plugin_loader.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/batch_norm.h"
#include "models/conv2d.h"
#include "models/host_array.h"
#include "models/npy.h"
#include "models/parameterless_layers.h"
#include "models/safetensors.h"
#include "models/sequential.h"
#include "models/vgg.h"
#include "nlohmann/json.hpp"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace {

constexpr char kPlugin[] = "backends/dnnl/libswitchyard_dnnl_plugin.so";
constexpr char kDataDir[] = "tests/golden/data";

// Single-op goldens dnnl:0 refuses, and why (backends/dnnl/dnnl_support.cc).
const std::map<std::string, std::string>& Refused() {
  static const auto* refused = new std::map<std::string, std::string>{
      {"adaptive_avg_pool2d__3x2_from_7x5.safetensors",
       "adaptive windows of different sizes"},
      {"adaptive_avg_pool2d__7x7_from_2x2.safetensors",
       "adaptive windows of different sizes"},
  };
  return *refused;
}

// dnnl:0 of the global registry, the plugin loaded into it once.
BackendDevice& Dnnl() {
  static BackendDevice* device = [] {
    BackendRegistry& registry = BackendRegistry::Global();
    absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(kPlugin, registry);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_TRUE(registry.SetOption("dnnl.threads=2").ok());
    absl::StatusOr<BackendDevice*> d = registry.GetDevice(*Device::Parse("dnnl:0"));
    EXPECT_TRUE(d.ok()) << d.status();
    return *d;
  }();
  return *device;
}

Tensor OnDnnl(const HostArray& array) {
  absl::StatusOr<Tensor> t = Tensor::FromBytes(
      array.shape, array.dtype, array.bytes.data(), array.bytes.size(), Dnnl());
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

void ExpectModelClose(const std::vector<float>& got, const HostArray& want,
                      const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.num_elements()) << what;
  double scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    scale = std::max(scale, std::abs(want.ElementAsDouble(i)));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want.ElementAsDouble(i), 1e-4 * scale)
        << what << " element " << i;
  }
}

std::vector<std::string> OpCases() {
  std::vector<std::string> cases;
  for (const auto& entry : std::filesystem::directory_iterator(kDataDir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StrContains(name, "__")) cases.push_back(name);
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

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

class DnnlGoldenOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DnnlGoldenOpTest, MatchesPyTorch) {
  const std::string& file = GetParam();
  const Device device = Dnnl().device();
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
    inputs.push_back(OnDnnl(t.at(name)));
  }
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    if (t.count(name) > 0) {
      operands.push_back(graph.AddConstant(name, OnDnnl(t.at(name))));
    }
  }
  graph.AddOutput(
      graph.AddNode(golden->metadata.at("op"), "golden", operands, *attrs));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  if (plan.status().code() == absl::StatusCode::kUnimplemented &&
      Refused().count(file) > 0) {
    GTEST_SKIP() << plan.status().message();
  }
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

INSTANTIATE_TEST_SUITE_P(
    AllOps, DnnlGoldenOpTest, ::testing::ValuesIn(OpCases()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(0, info.param.find('.'));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(DnnlGoldenTest, ReducedVggMatchesPyTorchEndToEnd) {
  const Device device = Dnnl().device();
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
  absl::StatusOr<Tensor> logits = vgg.Forward(OnDnnl(input));
  ASSERT_TRUE(logits.ok()) << logits.status();
  ASSERT_EQ(logits->shape(), want.shape);
  const std::vector<float> got = *logits->ToVector();
  ExpectModelClose(got, want, "reduced VGG logits");

  // The whole network is one oneDNN partition (no node left out).
  absl::StatusOr<ExecutablePlan*> plan = vgg.Compiled(input.shape, device);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ((*plan)->partitions().size(), 1u);
  EXPECT_EQ((*plan)->partitions()[0].nodes.size(), (*plan)->graph().nodes().size());
  // A second call reuses the plan, its primitives and prepacked weights.
  absl::StatusOr<Tensor> again = vgg.Forward(OnDnnl(input));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again->ToVector(), got);
}

// torchvision's vgg*_bn layout, as in tests/golden_test.cc.
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

TEST(DnnlGoldenTest, ConvBatchNormFoldedOrNotMatchesPyTorch) {
  const Device device = Dnnl().device();
  absl::StatusOr<SafetensorsFile> golden =
      ReadSafetensors(absl::StrCat(kDataDir, "/conv_bn_small.safetensors"));
  ASSERT_TRUE(golden.ok()) << golden.status();
  const HostArray& input = golden->tensors.at("input");
  const HostArray& want = golden->tensors.at("output");
  std::map<std::string, HostArray> state = golden->tensors;
  state.erase("input");
  state.erase("output");
  ConvBnSmall model;
  ASSERT_TRUE(model.To(device).ok());
  absl::Status loaded = model.LoadStateDict(state);
  ASSERT_TRUE(loaded.ok()) << loaded;
  const Tensor x = OnDnnl(input);

  absl::StatusOr<Tensor> folded = model.Forward(x);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ExpectModelClose(*folded->ToVector(), want, "folded");

  // batch_norm on the device: a oneDNN batch normalization with the relu
  // fused (fuse_norm_relu).
  absl::StatusOr<Graph> graph = model.TraceGraph(input.shape, device);
  ASSERT_TRUE(graph.ok()) << graph.status();
  CompileOptions options;
  options.fold_batch_norm = false;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> unfolded =
      Compile(*std::move(graph), options);
  ASSERT_TRUE(unfolded.ok()) << unfolded.status();
  ASSERT_EQ((*unfolded)->partitions().size(), 1u);
  EXPECT_EQ((*unfolded)->partitions()[0].name,
            "dnnl[conv2d x2, batch_norm+relu x2]");
  absl::StatusOr<std::vector<Tensor>> out = (*unfolded)->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectModelClose(*(*out)[0].ToVector(), want, "unfolded");
}

class DnnlOnnxModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DnnlOnnxModelTest, MatchesPyTorchAndOnnxRuntime) {
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = Dnnl().device();
  const std::string dir = absl::StrCat("tests/onnx_models/", GetParam());
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(dir + "/model.onnx", registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());
  absl::StatusOr<HostArray> input = ReadNpy(dir + "/input.npy");
  ASSERT_TRUE(input.ok()) << input.status();
  const std::vector<Tensor> inputs = {OnDnnl(*input)};
  absl::StatusOr<std::vector<Tensor>> y =
      (*model)->Forward(absl::MakeConstSpan(inputs));
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  const std::vector<float> got = *(*y)[0].ToVector();
  for (const char* reference : {"output_pytorch.npy", "output_onnxruntime.npy"}) {
    absl::StatusOr<HostArray> want = ReadNpy(absl::StrCat(dir, "/", reference));
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*y)[0].shape(), want->shape) << reference;
    ExpectModelClose(got, *want, reference);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, DnnlOnnxModelTest,
                         ::testing::Values("vgg11_bn", "resnet18", "resnet50"));

}  // namespace
}  // namespace switchyard
