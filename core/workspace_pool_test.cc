#include "core/workspace_pool.h"

#include <cstring>
#include <limits>
#include <memory>

#include "core/backend_registry.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

class WorkspacePoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Register("fake", [this] { return testing::MakeHostBackend("fake", 1, counters_); });
    device_ = *registry_.GetDevice(*Device::Parse("fake:0"));
  }
  std::shared_ptr<testing::HostBackendCounters> counters_ =
      std::make_shared<testing::HostBackendCounters>();
  BackendRegistry registry_;
  BackendDevice* device_ = nullptr;
};

TEST_F(WorkspacePoolTest, ARunOfTheSameSizeReusesTheBlock) {
  WorkspacePool pool;
  void* first = nullptr;
  {
    absl::StatusOr<Workspace> ws = pool.Borrow(*device_, 1000);
    ASSERT_TRUE(ws.ok()) << ws.status();
    EXPECT_GE(ws->size_bytes(), 1000u);
    first = ws->data();
  }
  EXPECT_GE(pool.idle_bytes(), 1000u);
  absl::StatusOr<Workspace> again = pool.Borrow(*device_, 1000);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(counters_->allocations.load(), 1);
  EXPECT_EQ(pool.idle_bytes(), 0u);
}

TEST_F(WorkspacePoolTest, ASmallerSizeTakesTheLargerBlock) {
  WorkspacePool pool;
  { ASSERT_TRUE(pool.Borrow(*device_, 4096).ok()); }
  absl::StatusOr<Workspace> smaller = pool.Borrow(*device_, 100);
  ASSERT_TRUE(smaller.ok());
  EXPECT_EQ(smaller->size_bytes(), 4096u);
  EXPECT_EQ(counters_->allocations.load(), 1);
}

TEST_F(WorkspacePoolTest, ALargerSizeReplacesTheBlockWithRoomToGrow) {
  WorkspacePool pool;
  { ASSERT_TRUE(pool.Borrow(*device_, 1000).ok()); }
  {
    absl::StatusOr<Workspace> larger = pool.Borrow(*device_, 8000);
    ASSERT_TRUE(larger.ok());
    EXPECT_EQ(larger->size_bytes(), 9000u);  // an eighth more
  }
  EXPECT_EQ(pool.idle_bytes(), 9000u);  // the small block went back to the device
  // A size a little larger than before fits without a new block.
  ASSERT_TRUE(pool.Borrow(*device_, 8500).ok());
  EXPECT_EQ(counters_->allocations.load(), 2);
}

TEST(WorkspacePoolHostMemoryTest, HostMemoryGetsTwiceTheRequest) {
  BackendRegistry registry;
  auto counters = std::make_shared<testing::HostBackendCounters>();
  registry.Register("host", [counters] {
    return testing::MakeHostBackend("host", 1, counters, /*host_memory=*/true);
  });
  BackendDevice* device = *registry.GetDevice(*Device::Parse("host:0"));
  WorkspacePool pool;
  { ASSERT_EQ(pool.Borrow(*device, 1000)->size_bytes(), 2000u); }
  { ASSERT_EQ(pool.Borrow(*device, 1900)->size_bytes(), 2000u); }  // fits
  EXPECT_EQ(pool.Borrow(*device, 3000)->size_bytes(), 6000u);
  EXPECT_EQ(counters->allocations.load(), 2);
}

TEST_F(WorkspacePoolTest, RunsAtTheSameTimeGetTheirOwnBlocks) {
  WorkspacePool pool;
  absl::StatusOr<Workspace> a = pool.Borrow(*device_, 64);
  absl::StatusOr<Workspace> b = pool.Borrow(*device_, 64);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->data(), b->data());
}

TEST_F(WorkspacePoolTest, ViewsAreBoundedAndKeepTheMemoryAlive) {
  std::shared_ptr<Buffer> view;
  {
    auto pool = std::make_unique<WorkspacePool>();
    absl::StatusOr<Workspace> ws = pool->Borrow(*device_, 1024);
    ASSERT_TRUE(ws.ok());
    EXPECT_FALSE(ws->View(1000, 100).ok());
    EXPECT_FALSE(ws->View(2000, 0).ok());
    EXPECT_FALSE(ws->View(8, std::numeric_limits<size_t>::max()).ok());
    absl::StatusOr<std::shared_ptr<Buffer>> v = ws->View(256, 512);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ((*v)->data(), static_cast<char*>(ws->data()) + 256);
    EXPECT_EQ(&(*v)->owner(), device_);
    view = *v;
    pool.reset();  // the workspace outlives its pool, then goes
  }
  // Under AddressSanitizer this would be a use after free if the view did
  // not hold the block.
  std::memset(view->data(), 1, view->size_bytes());
}

TEST(LayOutWorkspaceTest, AlignsEachValueAndRefusesOverflow) {
  size_t total = 0;
  absl::StatusOr<std::vector<size_t>> offsets = LayOutWorkspace({10, 300, 1}, &total);
  ASSERT_TRUE(offsets.ok());
  EXPECT_EQ(*offsets, (std::vector<size_t>{0, 256, 768}));
  EXPECT_EQ(total, 769u);
  const size_t huge = std::numeric_limits<size_t>::max() - 100;
  EXPECT_EQ(LayOutWorkspace({10, huge}, &total).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LayOutWorkspace({huge, 1}, &total).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(LayOutWorkspace({}, &total).ok());
  EXPECT_EQ(total, 0u);
}

}  // namespace
}  // namespace switchyard
