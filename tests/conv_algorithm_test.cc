// Every cpu.conv_algorithm (direct, winograd2, winograd4, auto) against the
// reference backend and PyTorch's goldens: the conv2d conformance cases
// (tests/conformance_cases.cc, plain and fused with relu), VGG-like layers
// large enough to have interior and edge tiles (their worst error is
// printed: the Winograd error budget in docs/benchmarks.md comes from
// here), the conv2d op goldens and the reduced VGG golden
// (tests/golden_test.cc's tolerances). Also what each kernel says it chose
// (Kernel::Describe) and a weight that is not a constant.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_device.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/prepared_weights.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/safetensors.h"
#include "models/vgg.h"
#include "tests/conformance_cases.h"
#include "tests/golden_fixtures.h"

namespace switchyard {
namespace {

using conformance::CompareResults;
using conformance::ConformanceCase;
using conformance::OpResult;

// Sets cpu.conv_algorithm for one test and puts "auto" back after it.
class ConvAlgorithmTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(BackendRegistry::Global()
                    .SetOption("cpu", "conv_algorithm", GetParam())
                    .ok());
  }
  void TearDown() override {
    ASSERT_TRUE(
        BackendRegistry::Global().SetOption("cpu", "conv_algorithm", "auto").ok());
  }
};

// The worst |got - want| over max |want| (the error relative to the
// output's scale), for the printed error budget.
double ScaledError(const OpResult& got, const OpResult& want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.values.size() && i < got.values.size(); ++i) {
    worst = std::max(worst, std::abs(got.values[i] - want.values[i]));
    scale = std::max(scale, std::abs(want.values[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

// F(4x4,3x3)'s error budget: its worst error relative to the output's
// largest value, against the double reference. Measured on the VGG-like
// layers below: 2.8e-6 to 8.3e-6 (direct and F(2x2,3x3): 1.5e-7 to
// 5.8e-7), inside the goldens' 1e-4 * max|want| for models with room to
// spare. The conformance table's per-element 1e-4 + 1e-4 |want| is for sums
// in another order; F(4x4,3x3) rounds in its transforms too, so on layers
// with hundreds of terms a few near-zero outputs exceed it: there it is
// held to this budget instead (tight enough to catch any wrong term).
constexpr double kWinograd4Budget = 2e-5;

void ExpectMatchesReference(const ConformanceCase& c,
                            bool scaled_budget = false) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<OpResult> want = conformance::ReferenceResult(
      c, registry, reference::ReferenceKernelKeys());
  ASSERT_TRUE(want.ok()) << c.name << ": " << want.status();
  absl::StatusOr<OpResult> got = conformance::RunCase(c, Device::Cpu(), registry);
  ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
  if (c.then_relu) {
    EXPECT_EQ(got->partitions, std::vector<std::string>{"conv2d+relu"}) << c.name;
  }
  const double error = ScaledError(*got, *want);
  if (scaled_budget) {
    EXPECT_LE(error, kWinograd4Budget) << c.name;
    EXPECT_EQ(got->shape, want->shape) << c.name;
  } else {
    EXPECT_EQ(CompareResults(*got, *want, conformance::ToleranceFor(c)), "")
        << c.name;
  }
  std::printf("  %-40s max|err|/max|want| = %.2e\n", c.name.c_str(), error);
}

TEST_P(ConvAlgorithmTest, Conv2dConformanceCasesMatchTheReference) {
  int cases = 0;
  for (const ConformanceCase& c : conformance::ConformanceCases()) {
    if (c.op != "conv2d" || c.dtype != DType::kFloat32) continue;
    ++cases;
    ExpectMatchesReference(c);
  }
  EXPECT_GE(cases, 10);
}

// VGG-like 3x3 pad-1 layers: several tiles per image, edge tiles in both
// directions, channel counts that are and are not multiples of 8, batch 2,
// and a valid (pad 0) one; values in [-1, 1) as the conformance cases, so
// sums of up to 1152 products.
std::vector<ConformanceCase> VggLikeCases() {
  using conformance::Case;
  const AttrValue pad1 = std::vector<int64_t>{1, 1};
  std::vector<ConformanceCase> cases = {
      Case("vgg_like_64_to_64_14x14", "conv2d", {Shape({1, 64, 14, 14})},
           {Shape({64, 64, 3, 3}), Shape({64})}, {{"padding", pad1}}),
      Case("vgg_like_128_to_32_28x28", "conv2d", {Shape({1, 128, 28, 28})},
           {Shape({32, 128, 3, 3}), Shape({32})}, {{"padding", pad1}}),
      Case("vgg_like_batch2_24_to_40_13x17", "conv2d", {Shape({2, 24, 13, 17})},
           {Shape({40, 24, 3, 3}), Shape({40})}, {{"padding", pad1}}),
      Case("vgg_like_5_to_7_9x10", "conv2d", {Shape({1, 5, 9, 10})},
           {Shape({7, 5, 3, 3}), Shape({7})}, {{"padding", pad1}}),
      Case("vgg_like_valid_16_to_16_11x9", "conv2d", {Shape({1, 16, 11, 9})},
           {Shape({16, 16, 3, 3})}),
  };
  ConformanceCase fused =
      Case("vgg_like_fused_relu_32_to_48_15x15", "conv2d",
           {Shape({3, 32, 15, 15})}, {Shape({48, 32, 3, 3}), Shape({48})},
           {{"padding", pad1}});
  fused.then_relu = true;
  cases.push_back(fused);
  return cases;
}

TEST_P(ConvAlgorithmTest, VggLikeLayersMatchTheReference) {
  std::printf("cpu.conv_algorithm=%s\n", GetParam().c_str());
  // winograd4, and auto where it picks winograd4 for these sizes.
  const bool budget = GetParam() == "winograd4" || GetParam() == "auto";
  for (const ConformanceCase& c : VggLikeCases()) {
    ExpectMatchesReference(c, budget);
  }
}

// A weight that is not a graph constant: the kernel transforms it per run.
TEST_P(ConvAlgorithmTest, WeightsThatAreGraphInputsWork) {
  ConformanceCase c = conformance::Case(
      "weight_as_input", "conv2d",
      {Shape({1, 16, 10, 10}), Shape({16, 16, 3, 3}), Shape({16})}, {},
      {{"padding", std::vector<int64_t>{1, 1}}});
  ExpectMatchesReference(c);
}

// tests/golden/data/conv2d__*: PyTorch's outputs, golden_test's tolerance.
TEST_P(ConvAlgorithmTest, Conv2dGoldensMatchPyTorch) {
  int files = 0;
  for (const std::string& name : golden::OpCaseFiles()) {
    if (!absl::StartsWith(name, "conv2d__")) continue;
    ++files;
    absl::StatusOr<golden::OpGolden> golden =
        golden::ReadOpGolden(name, Device::Cpu());
    ASSERT_TRUE(golden.ok()) << name << ": " << golden.status();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
        Compile(std::move(golden->graph));
    ASSERT_TRUE(plan.ok()) << name << ": " << plan.status();
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(golden->inputs);
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    golden::ExpectOpClose(
        *(*out)[0].ToVector(), golden->want,
        absl::StrCat(name, " with ", (*plan)->KernelsToString()));
  }
  EXPECT_GE(files, 8);
}

// The reduced VGG golden end to end (golden_test's ReducedVgg case).
TEST_P(ConvAlgorithmTest, ReducedVggGoldenMatchesPyTorch) {
  absl::StatusOr<golden::ModelGolden> golden =
      golden::ReadModelGolden("vgg_small");
  ASSERT_TRUE(golden.ok()) << golden.status();
  absl::StatusOr<nn::VggConfig> config = golden::VggConfigOf(*golden);
  ASSERT_TRUE(config.ok()) << config.status();
  const HostArray& want = golden->want;
  nn::Vgg vgg(*config);
  ASSERT_TRUE(vgg.To(Device::Cpu()).ok());
  ASSERT_TRUE(vgg.LoadStateDict(golden->state).ok());
  absl::StatusOr<Tensor> logits =
      vgg.Forward(golden::OnDevice(golden->input, Device::Cpu()));
  ASSERT_TRUE(logits.ok()) << logits.status();
  ASSERT_EQ(logits->shape(), want.shape);
  const std::vector<float> got = *logits->ToVector();
  float scale = 0;
  for (float v : want.values()) scale = std::max(scale, std::abs(v));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    worst = std::max<double>(worst, std::abs(got[i] - want.values()[i]));
    ASSERT_NEAR(got[i], want.values()[i], 1e-4 * scale) << "logit " << i;
  }
  std::printf("vgg_small golden, cpu.conv_algorithm=%s: max|err|/max|want| = %.2e\n",
              GetParam().c_str(), worst / scale);
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, ConvAlgorithmTest,
                         ::testing::Values("direct", "winograd2", "winograd4",
                                           "auto"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// What a conv2d's kernel says it chose, through the compiled plan.
std::string KernelOf(int64_t c, int64_t o, int64_t hw, int64_t stride,
                     const std::string& algorithm, bool relu = false) {
  BackendRegistry& registry = BackendRegistry::Global();
  EXPECT_TRUE(registry.SetOption("cpu", "conv_algorithm", algorithm).ok());
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({1, c, hw, hw}), Device::Cpu());
  std::vector<float> w(o * c * 9, 0.5f);
  ValueId weight = graph.AddConstant(
      "w", *Tensor::FromVector(Shape({o, c, 3, 3}), w, Device::Cpu(), registry));
  AttrMap attrs;
  attrs.Set("padding", std::vector<int64_t>{1, 1});
  attrs.Set("stride", std::vector<int64_t>{stride, stride});
  ValueId y = graph.AddNode("conv2d", "conv", {x, weight}, attrs);
  if (relu) y = graph.AddNode("relu", "relu", {y}, AttrMap());
  graph.AddOutput(y);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  EXPECT_TRUE(registry.SetOption("cpu", "conv_algorithm", "auto").ok());
  if (!plan.ok()) return plan.status().ToString();
  return (*plan)->KernelsToString();
}

TEST(ConvAlgorithmChoiceTest, TheKernelSaysWhatItChose) {
  EXPECT_TRUE(absl::StartsWith(KernelOf(64, 64, 28, 1, "direct"),
                               "conv/conv2d on cpu:0: direct: im2col"));
  EXPECT_TRUE(absl::StartsWith(KernelOf(64, 64, 28, 1, "winograd2"),
                               "conv/conv2d on cpu:0: winograd2: F(2x2,3x3)"));
  EXPECT_TRUE(absl::StartsWith(KernelOf(64, 64, 28, 1, "winograd4"),
                               "conv/conv2d on cpu:0: winograd4: F(4x4,3x3)"));
  // Fused with its relu: the partition's kernel says it.
  EXPECT_TRUE(absl::StartsWith(KernelOf(64, 64, 28, 1, "winograd4", true),
                               "conv/conv2d + relu/relu on cpu:0: winograd4:"));
  EXPECT_TRUE(absl::StrContains(KernelOf(64, 64, 28, 1, "winograd4"),
                                "weights prepacked"));
}

// One conv2d with a constant weight, compiled for batch `n`.
absl::StatusOr<std::unique_ptr<ExecutablePlan>> ConvPlan(const Tensor& weight, int64_t n) {
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({n, 16, 14, 14}), Device::Cpu());
  ValueId w = graph.AddConstant("w", weight);
  AttrMap attrs;
  attrs.Set("padding", std::vector<int64_t>{1, 1});
  graph.AddOutput(graph.AddNode("conv2d", "conv", {x, w}, attrs));
  return Compile(std::move(graph));
}

TEST(ConvAlgorithmChoiceTest, WinogradWeightsAreTransformedOncePerWeight) {
  BackendRegistry& registry = BackendRegistry::Global();
  ASSERT_TRUE(registry.SetOption("cpu", "conv_algorithm", "winograd4").ok());
  auto* cpu = dynamic_cast<cpu::CpuDevice*>(*registry.GetDevice(Device::Cpu()));
  ASSERT_NE(cpu, nullptr);
  const Tensor weight = *Tensor::FromVector(
      Shape({16, 16, 3, 3}), std::vector<float>(16 * 16 * 9, 0.25f), Device::Cpu(),
      registry);
  const PreparedWeights::Stats before = cpu->prepared_weights().stats();
  // Plans for three batch sizes (what a model run at several shapes
  // compiles) share one transform of the weight.
  std::vector<std::unique_ptr<ExecutablePlan>> plans;
  for (int64_t n : {1, 2, 5}) {
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = ConvPlan(weight, n);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(absl::StrContains((*plan)->KernelsToString(), "once per model"));
    plans.push_back(*std::move(plan));
  }
  PreparedWeights::Stats after = cpu->prepared_weights().stats();
  EXPECT_EQ(after.prepared - before.prepared, 1);
  EXPECT_EQ(after.reused - before.reused, 2);
  // Each still computes its own batch right: all outputs equal per image.
  const Tensor x1 = *Tensor::FromVector(Shape({1, 16, 14, 14}),
                                        std::vector<float>(16 * 14 * 14, 1.0f),
                                        Device::Cpu(), registry);
  const Tensor x5 = *Tensor::FromVector(Shape({5, 16, 14, 14}),
                                        std::vector<float>(5 * 16 * 14 * 14, 1.0f),
                                        Device::Cpu(), registry);
  const std::vector<float> y1 = *(*plans[0]->Run({x1}))[0].ToVector();
  const std::vector<float> y5 = *(*plans[2]->Run({x5}))[0].ToVector();
  for (size_t i = 0; i < y5.size(); ++i) ASSERT_NEAR(y5[i], y1[i % y1.size()], 1e-4);
  // Once no plan holds the transform, a new plan makes it again; another
  // weight tensor with the same values is another weight.
  plans.clear();
  ASSERT_TRUE(ConvPlan(weight, 1).ok());
  const Tensor other = *Tensor::FromVector(
      Shape({16, 16, 3, 3}), std::vector<float>(16 * 16 * 9, 0.25f), Device::Cpu(),
      registry);
  ASSERT_TRUE(ConvPlan(other, 1).ok());
  after = cpu->prepared_weights().stats();
  EXPECT_EQ(after.prepared - before.prepared, 3);
  ASSERT_TRUE(registry.SetOption("cpu", "conv_algorithm", "auto").ok());
}

TEST(ConvAlgorithmChoiceTest, AutoFollowsTheDocumentedRule) {
  // Fewer than 8 input channels (VGG's first layer): direct.
  EXPECT_TRUE(absl::StrContains(KernelOf(3, 64, 56, 1, "auto"), ": direct:"));
  // At least 16 tiles of 4x4 (batch 1: 13x13 and up): F(4x4,3x3); fewer:
  // F(2x2,3x3).
  EXPECT_TRUE(absl::StrContains(KernelOf(8, 64, 56, 1, "auto"), ": winograd4:"));
  EXPECT_TRUE(absl::StrContains(KernelOf(64, 64, 14, 1, "auto"), ": winograd4:"));
  EXPECT_TRUE(absl::StrContains(KernelOf(64, 64, 12, 1, "auto"), ": winograd2:"));
  EXPECT_TRUE(absl::StrContains(KernelOf(512, 512, 7, 1, "auto"), ": winograd2:"));
  // Not 3x3 stride 1: direct.
  EXPECT_TRUE(absl::StrContains(KernelOf(64, 64, 28, 2, "auto"), ": direct:"));
  // Not a 3x3 stride-1 conv: direct, even when a Winograd is forced.
  const std::string strided = KernelOf(64, 64, 28, 2, "winograd4");
  EXPECT_TRUE(absl::StrContains(strided, ": direct:")) << strided;
  EXPECT_TRUE(absl::StrContains(strided, "winograd does not apply: stride 2x2"))
      << strided;
}

}  // namespace
}  // namespace switchyard
