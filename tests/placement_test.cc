// Strict placement: operands on two devices fail in placement, before any
// kernel is created or run and before any buffer of the plan is allocated,
// with an error that names the node, its layer, the operands and devices.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/placement_hints.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/linear.h"
#include "ops/functional.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counters_ = std::make_shared<testing::HostBackendCounters>();
    ASSERT_TRUE(registry_.Register("cpu", [] { return cpu::CreateCpuBackend(); }).ok());
    auto counters = counters_;
    ASSERT_TRUE(registry_
                    .Register("fake", [counters] {
                      return testing::MakeHostBackend("fake", 2, counters);
                    })
                    .ok());
  }
  Device Fake(int i) { return *Device::Create("fake", i); }

  BackendRegistry registry_;
  std::shared_ptr<testing::HostBackendCounters> counters_;
};

TEST_F(PlacementTest, InputAndParametersOnDifferentDevicesFailBeforeAnyKernel) {
  nn::Sequential model(registry_);
  model.Add(std::make_unique<nn::Linear>(4, 3));
  model.Add(std::make_unique<nn::ReLU>());
  ASSERT_TRUE(model.InitializeParameters(0).ok());
  ASSERT_TRUE(model.To(Fake(1)).ok());
  EXPECT_EQ(model.Placement().ToString(), "fake:1");

  absl::StatusOr<Tensor> x =
      Tensor::FromVector({2, 4}, std::vector<float>(8, 1.0f), Device::Cpu(), registry_);
  ASSERT_TRUE(x.ok());
  const int allocations_before = counters_->allocations;

  absl::StatusOr<Tensor> y = model.Forward(*x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(y.status().message()),
              AllOf(HasSubstr("strict-placement: node '0/linear' (op linear, "
                              "layer '0') has operands on different devices"),
                    HasSubstr("input 'input' [2, 4] on cpu:0"),
                    HasSubstr("weight '0.weight' [3, 4] on fake:1 (parameter)"),
                    HasSubstr("bias '0.bias' [3] on fake:1 (parameter)"),
                    HasSubstr("Available devices: cpu:0, fake:0, fake:1"),
                    HasSubstr("x.To(\"fake:1\")"), HasSubstr("model.To(\"cpu:0\")")));
  // The front ends read the devices back to give their own fix.
  std::optional<MixedDevices> mixed = ParseMixedDevices(y.status());
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->model_device, "fake:1");
  EXPECT_EQ(mixed->data_device, "cpu:0");
  EXPECT_THAT(WithoutFix(y.status()), AllOf(HasSubstr("Available devices"),
                                            Not(HasSubstr("Fix:"))));
  EXPECT_FALSE(IsUnsupportedOnDevice(y.status(), "fake:1"));
  // Nothing ran and the plan allocated nothing on the second device.
  EXPECT_EQ(counters_->kernels_created, 0);
  EXPECT_EQ(counters_->kernels_run, 0);
  EXPECT_EQ(counters_->allocations, allocations_before);
}

TEST_F(PlacementTest, TwoDevicesOfOneBackendAreDifferentDevices) {
  Graph graph;
  ValueId a = graph.AddInput("a", Shape({3}), Fake(0));
  ValueId b = graph.AddInput("b", Shape({3}), Fake(1));
  graph.AddOutput(graph.AddNode("add", "residual", {a, b}, AttrMap()));
  CompileOptions options;
  options.backends = &registry_;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph), options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(plan.status().message()),
              AllOf(HasSubstr("node 'residual/add'"), HasSubstr("input 'a' [3] on fake:0"),
                    HasSubstr("other 'b' [3] on fake:1")));
  EXPECT_EQ(counters_->kernels_created, 0);
}

TEST_F(PlacementTest, ExplicitCopyNodeCrossesDevices) {
  Graph graph;
  ValueId a = graph.AddInput("a", Shape({3}), Fake(0));
  ValueId b = graph.AddInput("b", Shape({3}), Fake(1));
  AttrMap to;
  to.Set("device", std::string("fake:1"));
  ValueId moved = graph.AddNode("copy", "to_fake1", {a}, to);
  graph.AddOutput(graph.AddNode("add", "residual", {moved, b}, AttrMap()));
  CompileOptions options;
  options.backends = &registry_;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Tensor ta = *Tensor::FromVector({3}, {1, 2, 3}, Fake(0), registry_);
  Tensor tb = *Tensor::FromVector({3}, {10, 20, 30}, Fake(1), registry_);
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({ta, tb});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].device(), Fake(1));
  EXPECT_EQ(*(*out)[0].ToVector(), (std::vector<float>{11, 22, 33}));
}

TEST_F(PlacementTest, MissingDeviceIsUnavailableInPlacement) {
  Graph graph;
  ValueId a = graph.AddInput("a", Shape({3}), Fake(0));
  AttrMap to;
  to.Set("device", std::string("fake:7"));
  graph.AddOutput(graph.AddNode("copy", "to_fake7", {a}, to));
  CompileOptions options;
  options.backends = &registry_;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph), options);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(plan.status().message()),
              AllOf(HasSubstr("strict-placement: node 'to_fake7/copy'"),
                    HasSubstr("device fake:7 is not available: backend 'fake' has 2 devices")));
}

TEST_F(PlacementTest, UnsupportedOpFailsBeforeAllocation) {
  nn::Sequential model(registry_);
  model.Add(std::make_unique<nn::Linear>(4, 3));
  ASSERT_TRUE(model.InitializeParameters(0).ok());
  ASSERT_TRUE(model.To(Fake(0)).ok());
  Tensor x = *Tensor::FromVector({1, 4}, {1, 2, 3, 4}, Fake(0), registry_);
  const int allocations_before = counters_->allocations;
  absl::StatusOr<Tensor> y = model.Forward(x);
  EXPECT_EQ(y.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(y.status().message()),
              AllOf(HasSubstr("node '0/linear' (op linear, layer '0') on fake:0"),
                    HasSubstr("the test backend has no kernel for linear")));
  EXPECT_EQ(counters_->kernels_created, 0);
  EXPECT_EQ(counters_->allocations, allocations_before);
}

}  // namespace
}  // namespace switchyard

namespace switchyard {
namespace {

TEST_F(PlacementTest, AutoPolicyInsertsCopiesAndReportsThem) {
  Graph graph;
  ValueId a = graph.AddInput("a", Shape({3}), Fake(0));
  ValueId b = graph.AddInput("b", Shape({3}), Fake(1));
  graph.AddOutput(graph.AddNode("add", "residual", {a, b}, AttrMap()));
  CompileOptions options;
  options.backends = &registry_;
  options.placement = PlacementPolicy::kAuto;
  options.target = Fake(1);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const PlacementReport& report = (*plan)->placement_report();
  EXPECT_EQ(report.CopiesPerRun(), 1);
  EXPECT_EQ(report.BytesPerRun(), 12);
  EXPECT_THAT(report.ToString(),
              AllOf(HasSubstr("1 copy per run, 12 bytes per run"),
                    HasSubstr("a fake:0 -> fake:1 (12 bytes)")));
  EXPECT_EQ((*plan)->graph().node(0).name, "copy:a->fake:1");
  Tensor ta = *Tensor::FromVector({3}, {1, 2, 3}, Fake(0), registry_);
  Tensor tb = *Tensor::FromVector({3}, {10, 20, 30}, Fake(1), registry_);
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({ta, tb});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].device(), Fake(1));
  EXPECT_EQ(*(*out)[0].ToVector(), (std::vector<float>{11, 22, 33}));
}

TEST_F(PlacementTest, AnOpTheDeviceLacksUnderStrictPlacementIsReadBack) {
  nn::Sequential model(registry_);
  model.Add(std::make_unique<nn::Linear>(4, 3));  // the fake backend has no linear
  ASSERT_TRUE(model.InitializeParameters(0).ok());
  ASSERT_TRUE(model.To(Fake(0)).ok());
  Tensor x = *Tensor::FromVector({2, 4}, std::vector<float>(8, 1.0f), Fake(0), registry_);
  absl::StatusOr<Tensor> y = model.Forward(x);
  ASSERT_FALSE(y.ok());
  EXPECT_TRUE(IsUnsupportedOnDevice(y.status(), "fake:0")) << y.status();
  EXPECT_FALSE(IsUnsupportedOnDevice(y.status(), "fake:1"));
  EXPECT_FALSE(ParseMixedDevices(y.status()).has_value());
}

TEST_F(PlacementTest, AutoPolicyFallsBackToCpuAndMovesParametersOnce) {
  nn::Sequential model(registry_);
  model.Add(std::make_unique<nn::Linear>(4, 3));  // the fake backend has no linear
  model.Add(std::make_unique<nn::ReLU>());
  ASSERT_TRUE(model.InitializeParameters(0).ok());
  Tensor x = *Tensor::FromVector({2, 4}, {1, -2, 3, -4, 5, -6, 7, -8}, Device::Cpu(),
                                 registry_);
  absl::StatusOr<Tensor> on_cpu = model.Forward(x);
  ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();

  ASSERT_TRUE(model.To(Fake(0)).ok());
  model.set_placement(PlacementPolicy::kAuto);
  absl::StatusOr<Tensor> y = model.Forward(x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), Fake(0));
  EXPECT_EQ(*y->ToVector(), *on_cpu->ToVector());

  const PlacementReport& report =
      (*model.Compiled(x.shape(), x.device()))->placement_report();
  ASSERT_EQ(report.fallbacks.size(), 1u);
  EXPECT_EQ(report.fallbacks[0].node, "0/linear");
  EXPECT_THAT(report.ToString(),
              AllOf(HasSubstr("fell back: 0/linear runs on cpu:0 because fake:0 "
                              "cannot: the test backend has no kernel for linear"),
                    HasSubstr("2 parameters moved once at compile time (60 bytes)"),
                    HasSubstr("0/linear:0 cpu:0 -> fake:0 (24 bytes)")));
  EXPECT_EQ(report.CopiesPerRun(), 1);
}

// Many nodes falling back for one cause (a window-attention network's 36
// gathers) are one line naming a few; the device's op list comes once.
TEST_F(PlacementTest, FallbacksOfOneCauseAreOneLine) {
  PlacementReport report;
  const Device dnnl = Fake(0), cpu = Device::Cpu();
  for (int i = 0; i < 5; ++i) {
    const std::string node = absl::StrCat("attn", i, "/gather");
    report.fallbacks.push_back({node, dnnl, cpu,
                                absl::StrCat("no primitive for op 'gather' (node '", node,
                                             "'); it runs: add, conv2d, relu")});
  }
  report.fallbacks.push_back({"sub/sub", dnnl, cpu,
                              "neither operand broadcasts; it runs: add, conv2d, relu"});
  const std::string text = report.ToString();
  EXPECT_THAT(text, HasSubstr("fell back: attn0/gather, attn1/gather, attn2/gather and 2 more "
                              "like them run on cpu:0 because fake:0 cannot: no primitive for "
                              "op 'gather'\n"));
  EXPECT_THAT(text, HasSubstr("fell back: sub/sub runs on cpu:0 because fake:0 cannot: neither "
                              "operand broadcasts\n"));
  EXPECT_THAT(text, HasSubstr("\n  fake:0 runs: add, conv2d, relu"));
  EXPECT_EQ(text.find("it runs:"), std::string::npos) << text;
}

TEST_F(PlacementTest, EagerCallsGoThroughStrictPlacement) {
  Tensor y = *Tensor::FromVector({3}, {1, 2, 3}, Fake(1), registry_);
  Tensor x = *Tensor::FromVector({3}, {1, 1, 1}, Fake(0), registry_);
  absl::StatusOr<Tensor> sum = functional::Add(y, x, registry_);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sum.status().message()),
              AllOf(HasSubstr("node 'add/add' (op add, layer 'add') has operands "
                              "on different devices"),
                    HasSubstr("input 'input' [3] on fake:1"),
                    HasSubstr("other 'other' [3] on fake:0")));
  EXPECT_EQ(counters_->kernels_run, 0);
  absl::StatusOr<Tensor> fixed = functional::Add(y, *x.To(Fake(1), registry_), registry_);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(*fixed->ToVector(), (std::vector<float>{2, 3, 4}));
}

}  // namespace
}  // namespace switchyard

namespace switchyard {
namespace {

// The classic `y + x.cpu()`: two reference devices, one eager call.
TEST(EagerPlacementTest, AddAcrossTwoReferenceDevicesFailsLikeAModel) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register("ref", [] { return reference::CreateReferenceBackend(2); })
                  .ok());
  const Device ref0 = *Device::Parse("ref:0");
  const Device ref1 = *Device::Parse("ref:1");
  Tensor y = *Tensor::FromVector({2, 2}, {1, 2, 3, 4}, ref0, registry);
  Tensor x = *Tensor::FromVector({2, 2}, {10, 20, 30, 40}, ref1, registry);

  absl::StatusOr<Tensor> sum = functional::Add(y, x, registry);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sum.status().message()),
              AllOf(HasSubstr("strict-placement: node 'add/add' (op add, layer 'add') "
                              "has operands on different devices"),
                    HasSubstr("input 'input' [2, 2] on ref:0"),
                    HasSubstr("other 'other' [2, 2] on ref:1"),
                    HasSubstr("Available devices: ref:0, ref:1")));

  absl::StatusOr<Tensor> moved = functional::Add(y, *x.To(ref0, registry), registry);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->device(), ref0);
  EXPECT_EQ(*moved->ToVector(), (std::vector<float>{11, 22, 33, 44}));
}

}  // namespace
}  // namespace switchyard
