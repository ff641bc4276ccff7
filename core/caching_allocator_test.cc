// The caching allocator's policy (CPU and CUDA devices use it) (size classes, reuse, statistics,
// releasing the cache, out of memory) on a fake device: runs everywhere.

#include "core/caching_allocator.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/format_bytes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;

// Hands out fake addresses from a budget; records what happened.
struct FakeLog {
  size_t capacity = 64 * kMiB;
  size_t used = 0;
  int mallocs = 0;
  int frees = 0;
  int syncs = 0;
  std::set<void*> live;
};

class FakeSource : public MemorySource {
 public:
  explicit FakeSource(FakeLog* log) : log_(log) {}
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    if (log_->used + bytes > log_->capacity) {
      return absl::ResourceExhaustedError("cudaMalloc: out of memory (fake)");
    }
    log_->used += bytes;
    ++log_->mallocs;
    next_ += bytes + 4096;
    void* p = reinterpret_cast<void*>(next_);
    sizes_[p] = bytes;
    log_->live.insert(p);
    return p;
  }
  absl::Status Free(void* ptr) override {
    ++log_->frees;
    log_->used -= sizes_.at(ptr);
    log_->live.erase(ptr);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    ++log_->syncs;
    return absl::OkStatus();
  }
  absl::Status MemoryInfo(size_t* free_bytes, size_t* total_bytes) override {
    *free_bytes = log_->capacity - log_->used;
    *total_bytes = log_->capacity;
    return absl::OkStatus();
  }
  std::string DeviceName() const override { return "fake:3"; }

 private:
  FakeLog* log_;
  uintptr_t next_ = 1 << 20;
  std::map<void*, size_t> sizes_;
};

std::unique_ptr<CachingAllocator> Make(FakeLog* log,
                                       const CachingAllocatorOptions& options = {}) {
  return std::make_unique<CachingAllocator>(std::make_unique<FakeSource>(log),
                                            options);
}

TEST(CachingAllocatorTest, SizeClasses) {
  EXPECT_EQ(CachingAllocator::BlockSize(0), 512u);
  EXPECT_EQ(CachingAllocator::BlockSize(1), 512u);
  EXPECT_EQ(CachingAllocator::BlockSize(512), 512u);
  EXPECT_EQ(CachingAllocator::BlockSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::BlockSize(kMiB), kMiB);
  EXPECT_EQ(CachingAllocator::BlockSize(kMiB + 1), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::BlockSize(3 * kMiB), 4 * kMiB);
  EXPECT_EQ(CachingAllocator::BlockSize(SIZE_MAX - 5), 0u);
}

TEST(CachingAllocatorTest, ReusesFreedBlocksOfTheSameClass) {
  FakeLog log;
  auto allocator = Make(&log);
  absl::StatusOr<void*> a = allocator->Allocate(1000);
  ASSERT_TRUE(a.ok()) << a.status();
  allocator->Free(*a);
  absl::StatusOr<void*> b = allocator->Allocate(600);  // also a 1024 block
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(log.mallocs, 1);
  // Another class does not take it.
  absl::StatusOr<void*> c = allocator->Allocate(5000);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*c, *a);
  EXPECT_EQ(log.mallocs, 2);
  const AllocatorStats s = allocator->stats();
  EXPECT_EQ(s.allocations, 3);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.device_mallocs, 2);
}

TEST(CachingAllocatorTest, LargeBlocksServeSlightlySmallerRequestsOnly) {
  FakeLog log;
  auto allocator = Make(&log);
  void* big = *allocator->Allocate(18 * kMiB);
  allocator->Free(big);
  // 16 MiB: the 18 MiB block is at most 1/8 larger, so it is reused.
  void* p = *allocator->Allocate(16 * kMiB);
  EXPECT_EQ(p, big);
  allocator->Free(p);
  // 4 MiB would waste too much of it: a new block.
  void* q = *allocator->Allocate(4 * kMiB);
  EXPECT_NE(q, big);
  EXPECT_EQ(log.mallocs, 2);
}

TEST(CachingAllocatorTest, StatsTrackAllocatedReservedAndPeak) {
  FakeLog log;
  auto allocator = Make(&log);
  void* a = *allocator->Allocate(3 * kMiB);  // 4 MiB block
  void* b = *allocator->Allocate(100);       // 512 B block
  AllocatorStats s = allocator->stats();
  EXPECT_EQ(s.allocated_bytes, static_cast<int64_t>(4 * kMiB + 512));
  EXPECT_EQ(s.requested_bytes, static_cast<int64_t>(3 * kMiB + 100));
  EXPECT_EQ(s.reserved_bytes, s.allocated_bytes);
  EXPECT_EQ(s.cached_bytes, 0);
  allocator->Free(a);
  s = allocator->stats();
  EXPECT_EQ(s.allocated_bytes, 512);
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(4 * kMiB));
  EXPECT_EQ(s.reserved_bytes, static_cast<int64_t>(4 * kMiB + 512));
  EXPECT_EQ(s.peak_allocated_bytes, static_cast<int64_t>(4 * kMiB + 512));
  allocator->ResetPeakStats();
  EXPECT_EQ(allocator->stats().peak_allocated_bytes, 512);
  allocator->Free(b);
}

TEST(CachingAllocatorTest, ReleaseCacheSynchronizesAndFreesCachedBlocksOnly) {
  FakeLog log;
  auto allocator = Make(&log);
  void* kept = *allocator->Allocate(2 * kMiB);
  void* dropped = *allocator->Allocate(8 * kMiB);
  allocator->Free(dropped);
  ASSERT_TRUE(allocator->ReleaseCache().ok());
  EXPECT_EQ(log.syncs, 1);
  EXPECT_EQ(log.frees, 1);
  EXPECT_EQ(log.live.count(kept), 1u);
  EXPECT_EQ(log.live.count(dropped), 0u);
  const AllocatorStats s = allocator->stats();
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, static_cast<int64_t>(2 * kMiB));
  EXPECT_EQ(s.device_frees, 1);
  allocator->Free(kept);
}

TEST(CachingAllocatorTest, OutOfMemoryReleasesTheCacheAndRetries) {
  FakeLog log;
  log.capacity = 40 * kMiB;
  auto allocator = Make(&log);
  void* a = *allocator->Allocate(30 * kMiB);
  allocator->Free(a);  // cached: 30 MiB of the 40 stay reserved
  // 20 MiB fits only once the cache is released.
  absl::StatusOr<void*> b = allocator->Allocate(20 * kMiB);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(allocator->stats().cache_flushes, 1);
  EXPECT_EQ(log.frees, 1);
  allocator->Free(*b);
}

TEST(CachingAllocatorTest, OutOfMemoryIsResourceExhaustedWithTheFacts) {
  FakeLog log;
  log.capacity = 40 * kMiB;
  auto allocator = Make(&log);
  void* a = *allocator->Allocate(10 * kMiB);
  absl::StatusOr<void*> huge = allocator->Allocate(100 * kMiB);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string message(huge.status().message());
  EXPECT_THAT(message, HasSubstr("fake:3 is out of memory"));
  EXPECT_THAT(message, HasSubstr("cannot allocate 100.00 MiB (104857600 bytes)"));
  EXPECT_THAT(message, HasSubstr("the device has 30.00 MiB free of 40.00 MiB"));
  EXPECT_THAT(message, HasSubstr("Switchyard holds 10.00 MiB there"));
  EXPECT_THAT(message, HasSubstr("smaller batch"));
  // Nothing changed: the held block is still valid and counted.
  EXPECT_EQ(allocator->stats().allocated_bytes, static_cast<int64_t>(10 * kMiB));
  allocator->Free(a);

  absl::StatusOr<void*> overflow = allocator->Allocate(SIZE_MAX - 3);
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(CachingAllocatorTest, DestructionReturnsCachedBlocks) {
  FakeLog log;
  {
    auto allocator = Make(&log);
    allocator->Free(*allocator->Allocate(3 * kMiB));
    allocator->Free(*allocator->Allocate(300));
  }
  EXPECT_TRUE(log.live.empty());
  EXPECT_EQ(log.used, 0u);
}

TEST(CachingAllocatorTest, SizeClassesFollowTheOptions) {
  CachingAllocatorOptions fine;
  fine.small_rounding = 64;
  fine.large_rounding = 64 << 10;
  EXPECT_EQ(CachingAllocator::BlockSize(1, fine), 64u);
  EXPECT_EQ(CachingAllocator::BlockSize(65, fine), 128u);
  EXPECT_EQ(CachingAllocator::BlockSize(kMiB + 1, fine), kMiB + (64 << 10));
}

TEST(CachingAllocatorTest, CacheBeyondItsLimitGoesBackLargestFirst) {
  FakeLog log;
  CachingAllocatorOptions options;
  options.max_cached_bytes = 5 * kMiB;
  auto allocator = Make(&log, options);
  void* a = *allocator->Allocate(4 * kMiB);
  void* b = *allocator->Allocate(2 * kMiB);
  allocator->Free(b);  // 2 MiB cached
  EXPECT_EQ(log.frees, 0);
  allocator->Free(a);  // 6 MiB would be cached: the 4 MiB block goes back
  EXPECT_EQ(log.frees, 1);
  EXPECT_EQ(log.live.count(a), 0u);
  EXPECT_EQ(allocator->stats().cached_bytes, static_cast<int64_t>(2 * kMiB));
  // A lower limit trims at once; 0 keeps nothing.
  ASSERT_TRUE(allocator->SetMaxCachedBytes(0).ok());
  EXPECT_EQ(allocator->stats().cached_bytes, 0);
  EXPECT_TRUE(log.live.empty());
  void* c = *allocator->Allocate(100);
  allocator->Free(c);
  EXPECT_EQ(allocator->stats().reserved_bytes, 0);
  EXPECT_EQ(allocator->SetMaxCachedBytes(-1).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CachingAllocatorTest, WatchesSeeTheirOwnPeakAndFreshBlocks) {
  FakeLog log;
  auto allocator = Make(&log);
  void* resident = *allocator->Allocate(1000);  // a 1024 block, kept
  const int64_t first = allocator->BeginWatch();
  void* a = *allocator->Allocate(3000);  // 3072
  void* b = *allocator->Allocate(5000);  // 5120
  allocator->Free(a);
  allocator->Free(b);
  WatchedMemory seen = allocator->EndWatch(first);
  EXPECT_EQ(seen.start_bytes, 1024);
  EXPECT_EQ(seen.peak_bytes, 1024 + 3072 + 5120);
  EXPECT_EQ(seen.end_bytes, 1024);
  EXPECT_EQ(seen.new_blocks, 2);
  EXPECT_EQ(seen.new_bytes, 3072 + 5120);

  // The same work again takes nothing new; a nested watch has its own peak.
  const int64_t second = allocator->BeginWatch();
  a = *allocator->Allocate(3000);
  const int64_t inner = allocator->BeginWatch();
  allocator->Free(a);
  b = *allocator->Allocate(5000);
  allocator->Free(b);
  const WatchedMemory inner_seen = allocator->EndWatch(inner);
  seen = allocator->EndWatch(second);
  EXPECT_EQ(seen.new_blocks, 0);
  EXPECT_EQ(seen.peak_bytes, 1024 + 5120);
  EXPECT_EQ(inner_seen.start_bytes, 1024 + 3072);
  EXPECT_EQ(inner_seen.peak_bytes, 1024 + 5120);
  EXPECT_EQ(inner_seen.end_bytes, 1024);
  EXPECT_EQ(allocator->EndWatch(second).peak_bytes, 0);  // already ended
  allocator->Free(resident);
}

TEST(CachingAllocatorTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(int64_t{3} << 30), "3.00 GiB");
  EXPECT_EQ(FormatBytes(-1), "?");
}

}  // namespace
}  // namespace switchyard
