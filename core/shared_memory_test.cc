// Tensors changing device without a copy between devices of host memory:
// the share itself, plans whose copy nodes share (and keep the shared slot
// alive until its last reader), and auto placement's report of them.

#include "core/shared_memory.h"

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/copy_op.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

class SharedMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("host",
                              [this] {
                                return testing::MakeHostBackend("host", 2, host_counters_,
                                                                /*host_memory=*/true);
                              })
                    .ok());
    ASSERT_TRUE(registry_
                    .Register("far",
                              [this] { return testing::MakeHostBackend("far", 1, far_counters_); })
                    .ok());
  }
  BackendDevice& Get(const char* name) { return **registry_.GetDevice(*Device::Parse(name)); }
  Tensor Values(const char* device, std::vector<float> values) {
    return *Tensor::FromVector(Shape({static_cast<int64_t>(values.size())}), values,
                               *Device::Parse(device), registry_);
  }

  std::shared_ptr<testing::HostBackendCounters> host_counters_ =
      std::make_shared<testing::HostBackendCounters>();
  std::shared_ptr<testing::HostBackendCounters> far_counters_ =
      std::make_shared<testing::HostBackendCounters>();
  BackendRegistry registry_;
};

TEST_F(SharedMemoryTest, ASharedTensorIsTheSameBytesOnTheOtherDevice) {
  Tensor x = Values("host:0", {1, 2, 3});
  const void* bytes = x.buffer()->data();
  EXPECT_TRUE(SharesMemory(Get("host:0"), Get("host:1")));
  EXPECT_FALSE(SharesMemory(Get("host:0"), Get("host:0")));  // the same device
  absl::StatusOr<Tensor> y = ShareWith(x, Get("host:1"));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), *Device::Parse("host:1"));
  EXPECT_EQ(y->buffer()->data(), bytes);
  x = Tensor();  // the shared tensor keeps the bytes alive
  EXPECT_EQ(*y->ToVector(), (std::vector<float>{1, 2, 3}));
}

TEST_F(SharedMemoryTest, DevicesOfTheirOwnMemoryGetACopy) {
  Tensor x = Values("host:0", {1, 2});
  EXPECT_FALSE(SharesMemory(Get("host:0"), Get("far:0")));
  absl::StatusOr<Tensor> shared = ShareWith(x, Get("far:0"));
  EXPECT_EQ(shared.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(shared.status().message(), "do not share memory"));
  absl::StatusOr<Tensor> moved = MoveOrShare(x, Get("far:0"));
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_NE(moved->buffer()->data(), x.buffer()->data());
  EXPECT_EQ(*moved->ToVector(), (std::vector<float>{1, 2}));
  EXPECT_EQ(ShareWith(Tensor(), Get("host:1")).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// a = relu(x) and b = relu(y) on host:0 are copied to host:1 and added
// there. The copies share; a's slot must live until the add, or relu(y)
// (run after a's copy) would take it and the add would read b twice.
TEST_F(SharedMemoryTest, APlansCopiesShareAndTheSharedSlotLivesUntilItsLastReader) {
  const Device d0 = *Device::Parse("host:0");
  const Device d1 = *Device::Parse("host:1");
  Graph g;
  ValueId x = g.AddInput("x", Shape({4}), d0);
  ValueId y = g.AddInput("y", Shape({4}), d0);
  AttrMap to1;
  to1.Set("device", d1.ToString());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  ValueId a1 = g.AddNode(kCopyOp, "a_to_1", {a}, to1);
  ValueId b = g.AddNode("relu", "b", {y}, AttrMap());
  ValueId b1 = g.AddNode(kCopyOp, "b_to_1", {b}, to1);
  g.AddOutput(g.AddNode("add", "sum", {a1, b1}, AttrMap()));
  CompileOptions options;
  options.backends = &registry_;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const BufferPlan& buffers = (*plan)->buffer_plan();
  EXPECT_EQ(buffers.shared_source[a1], a);
  EXPECT_EQ(buffers.shared_source[b1], b);
  EXPECT_EQ(buffers.value_slot[a1], -1);
  EXPECT_NE(buffers.value_slot[a], buffers.value_slot[b]);

  const std::vector<Tensor> inputs = {Values("host:0", {1, -2, 3, -4}),
                                      Values("host:0", {10, 20, -30, 40})};
  host_counters_->copies_from_host = 0;
  host_counters_->copies_to_host = 0;
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].device(), d1);
    EXPECT_EQ(*(*out)[0].ToVector(), (std::vector<float>{11, 20, 3, 40}));
  }
  // Reading the outputs back is the only traffic: no copy moved a value.
  EXPECT_EQ(host_counters_->copies_from_host.load(), 0);
  EXPECT_EQ(host_counters_->copies_to_host.load(), 2);
}

TEST_F(SharedMemoryTest, AutoPlacementReportsNoBytesBetweenDevicesOfHostMemory) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({8}), *Device::Parse("host:0"));
  g.AddOutput(g.AddNode("relu", "r", {x}, AttrMap()));
  CompileOptions options;
  options.backends = &registry_;
  options.placement = PlacementPolicy::kAuto;
  options.target = *Device::Parse("host:1");
  PlacementReport report;
  options.report = &report;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(report.CopiesPerRun(), 0);
  EXPECT_EQ(report.BytesPerRun(), 0);
  EXPECT_EQ(report.SharesPerRun(), 1);
  EXPECT_TRUE(absl::StrContains(report.ToString(), "0 copies per run, 0 bytes per run; 1 value "
                                                   "per run changes device without a copy"))
      << report.ToString();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({Values("host:0", {-1, 2, -3, 4, 5, -6, 7, -8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*(*out)[0].ToVector(), (std::vector<float>{0, 2, 0, 4, 5, 0, 7, 0}));

  // Toward a device of its own memory the copy moves bytes, as before.
  Graph far;
  ValueId fx = far.AddInput("x", Shape({8}), *Device::Parse("host:0"));
  far.AddOutput(far.AddNode("relu", "r", {fx}, AttrMap()));
  options.target = *Device::Parse("far:0");
  ASSERT_TRUE(Compile(std::move(far), options).ok());
  EXPECT_EQ(report.CopiesPerRun(), 1);
  EXPECT_EQ(report.BytesPerRun(), 32);
  EXPECT_EQ(report.SharesPerRun(), 0);
}

}  // namespace
}  // namespace switchyard
