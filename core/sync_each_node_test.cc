// SWITCHYARD_SYNC_EACH_NODE: an asynchronous device's fault reported with
// the node that caused it (the device synchronised after every node), and
// without the switch, at the end of the run with the hint to set it. The
// test backend faults like an asynchronous device (host_backend.h:
// fault_after_kernels).

#include <cstdlib>
#include <memory>

#include "absl/strings/match.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

class SyncEachNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("fake",
                              [this] { return testing::MakeHostBackend("fake", 1, counters_); })
                    .ok());
  }
  void TearDown() override { unsetenv("SWITCHYARD_SYNC_EACH_NODE"); }

  // relu (first) -> relu (second) -> add (third); the device faults after
  // the second kernel.
  absl::Status RunFaulting() {
    const Device device = *Device::Parse("fake:0");
    Graph g;
    ValueId x = g.AddInput("x", Shape({4}), device);
    ValueId a = g.AddNode("relu", "first", {x}, AttrMap());
    ValueId b = g.AddNode("relu", "second", {a}, AttrMap());
    g.AddOutput(g.AddNode("add", "third", {b, x}, AttrMap()));
    CompileOptions options;
    options.backends = &registry_;
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
    if (!plan.ok()) return plan.status();
    absl::StatusOr<Tensor> input = Tensor::FromVector(Shape({4}), {1, -2, 3, -4}, device,
                                                      registry_);
    if (!input.ok()) return input.status();
    counters_->kernels_run = 0;
    counters_->fault_after_kernels = 1;
    return (*plan)->Run({*input}).status();
  }

  std::shared_ptr<testing::HostBackendCounters> counters_ =
      std::make_shared<testing::HostBackendCounters>();
  BackendRegistry registry_;
};

TEST_F(SyncEachNodeTest, TheSwitchNamesTheNodeThatFaulted) {
  ASSERT_EQ(setenv("SWITCHYARD_SYNC_EACH_NODE", "1", 1), 0);
  const absl::Status status = RunFaulting();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "second")) << status;
  EXPECT_FALSE(absl::StrContains(status.message(), "third")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "SWITCHYARD_SYNC_EACH_NODE's synchronisation"))
      << status;
  // The third kernel never ran.
  EXPECT_EQ(counters_->kernels_run.load(), 2);
}

TEST_F(SyncEachNodeTest, WithoutItTheRunsEndSaysHowToFindTheNode) {
  const absl::Status status = RunFaulting();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "the test device faulted")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "rerun with SWITCHYARD_SYNC_EACH_NODE=1"))
      << status;
  EXPECT_EQ(counters_->kernels_run.load(), 3);
}

}  // namespace
}  // namespace switchyard
