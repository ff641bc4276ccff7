// Golden tests: every op case, a reduced VGG and a conv + batch-norm + relu
// model with a torchvision state dict against PyTorch's outputs, on every
// available device. Fixtures are made by tools/make_goldens.py (Debian's
// python3-torch) and committed, so this test needs no PyTorch; reading them
// and their tolerances: tests/golden_fixtures.h.

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/safetensors.h"
#include "models/vgg.h"
#include "tests/golden_fixtures.h"

namespace switchyard {
namespace {

using golden::ExpectModelClose;
using golden::ExpectOpClose;
using golden::OnDevice;

class GoldenOpTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GoldenOpTest, MatchesPyTorch) {
  const auto& [file, device_name] = GetParam();
  const Device device = *Device::Parse(device_name);
  absl::StatusOr<golden::OpGolden> golden = golden::ReadOpGolden(file, device);
  ASSERT_TRUE(golden.ok()) << golden.status();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(golden->graph));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(golden->inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), golden->want.shape);
  ExpectOpClose(*(*out)[0].ToVector(), golden->want, file);
}

std::vector<std::string> DeviceNames() {
  std::vector<std::string> names;
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    names.push_back(d.ToString());
  }
  return names;
}

// A test name from parts: every character but letters and digits as '_'.
std::string TestName(const std::string& text) {
  std::string name = text;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string CaseName(
    const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  return TestName(
      absl::StrCat(std::get<0>(info.param), "_on_", std::get<1>(info.param)));
}

std::string DeviceName(const ::testing::TestParamInfo<std::string>& info) {
  return TestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(
    AllOps, GoldenOpTest,
    ::testing::Combine(::testing::ValuesIn(golden::OpCaseFiles()),
                       ::testing::ValuesIn(DeviceNames())),
    CaseName);

class GoldenVggTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenVggTest, ReducedVggMatchesPyTorchEndToEnd) {
  const Device device = *Device::Parse(GetParam());
  absl::StatusOr<golden::ModelGolden> golden =
      golden::ReadModelGolden("vgg_small");
  ASSERT_TRUE(golden.ok()) << golden.status();
  absl::StatusOr<nn::VggConfig> config = golden::VggConfigOf(*golden);
  ASSERT_TRUE(config.ok()) << config.status();

  nn::Vgg vgg(*config);
  ASSERT_TRUE(vgg.To(device).ok());
  absl::Status loaded = vgg.LoadStateDict(golden->state);
  ASSERT_TRUE(loaded.ok()) << loaded;
  absl::StatusOr<Tensor> logits = vgg.Forward(OnDevice(golden->input, device));
  ASSERT_TRUE(logits.ok()) << logits.status();
  ASSERT_EQ(logits->shape(), golden->want.shape);
  std::vector<float> got = *logits->ToVector();
  ExpectModelClose(got, golden->want, "logits");
  // A second call reuses the cached plan and gives the same answer.
  absl::StatusOr<Tensor> again = vgg.Forward(OnDevice(golden->input, device));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again->ToVector(), got);
}

INSTANTIATE_TEST_SUITE_P(AllDevices, GoldenVggTest,
                         ::testing::ValuesIn(DeviceNames()), DeviceName);

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
  absl::StatusOr<golden::ModelGolden> golden =
      golden::ReadModelGolden("conv_bn_small");
  ASSERT_TRUE(golden.ok()) << golden.status();
  EXPECT_EQ(golden->metadata.at("eps"), "[1e-05, 0.001]");
  const HostArray& input = golden->input;
  const HostArray& want = golden->want;
  const std::map<std::string, HostArray>& state = golden->state;
  ASSERT_EQ(state.at("features.1.num_batches_tracked").dtype, DType::kInt64);

  golden::ConvBnSmall model;
  ASSERT_TRUE(model.To(device).ok());
  absl::Status loaded = model.LoadStateDict(state);
  ASSERT_TRUE(loaded.ok()) << loaded;
  absl::StatusOr<std::map<std::string, HostArray>> saved = model.StateDict();
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->at("features.4.num_batches_tracked").dtype, DType::kInt64);
  EXPECT_EQ(saved->at("features.4.num_batches_tracked").ElementAsDouble(0), 3);
  EXPECT_EQ(saved->at("features.4.running_var").bytes,
            state.at("features.4.running_var").bytes);

  auto expect_golden = [&](const Tensor& got, const char* what) {
    ASSERT_EQ(got.shape(), want.shape) << what;
    ExpectModelClose(*got.ToVector(), want, what);
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
  golden::ConvBnSmall from_file;
  ASSERT_TRUE(from_file.To(device).ok());
  absl::Status mapped = from_file.LoadSafetensors(weights);
  ASSERT_TRUE(mapped.ok()) << mapped;
  absl::StatusOr<Tensor> again = from_file.Forward(x);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again->ToVector(), *y->ToVector());
}

INSTANTIATE_TEST_SUITE_P(AllDevices, GoldenConvBnTest,
                         ::testing::ValuesIn(DeviceNames()), DeviceName);

}  // namespace
}  // namespace switchyard
