#include "backends/cuda/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace switchyard {
namespace cuda {

std::string FormatBytes(int64_t bytes) {
  if (bytes < 0) return "?";
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.2f %s", value, units[unit]);
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemorySource> source)
    : source_(std::move(source)) {}

CachingAllocator::~CachingAllocator() {
  absl::MutexLock lock(&mu_);
  if (!in_use_.empty()) {
    std::fprintf(stderr,
                 "switchyard: %s allocator destroyed with %zu block(s) (%s) "
                 "still in use; they are not freed\n",
                 source_->DeviceName().c_str(), in_use_.size(),
                 FormatBytes(stats_.allocated_bytes).c_str());
  }
  absl::Status released = ReleaseCacheLocked();
  if (!released.ok()) {
    std::fprintf(stderr, "switchyard: releasing the %s cache: %s\n",
                 source_->DeviceName().c_str(), released.ToString().c_str());
  }
}

size_t CachingAllocator::BlockSize(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  const size_t rounding =
      bytes <= kLargeThreshold ? kSmallRounding : kLargeRounding;
  if (bytes > std::numeric_limits<size_t>::max() - rounding) return 0;
  return (bytes + rounding - 1) / rounding * rounding;
}

void CachingAllocator::Hand(void* ptr, size_t size, size_t requested) {
  in_use_[ptr] = Block{size, requested};
  ++stats_.allocations;
  stats_.allocated_bytes += size;
  stats_.requested_bytes += requested;
  stats_.peak_allocated_bytes =
      std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes) {
  const size_t size = BlockSize(bytes);
  absl::MutexLock lock(&mu_);
  if (size == 0) {
    return OutOfMemory(bytes, size,
                       absl::ResourceExhaustedError("the size overflows"));
  }

  // The smallest cached block of this class or, for large blocks, at most
  // 1/8 larger.
  auto it = cache_.lower_bound(size);
  const size_t slack = size <= kLargeThreshold ? 0 : size / 8;
  if (it != cache_.end() && it->first - size <= slack) {
    void* ptr = it->second;
    const size_t block = it->first;
    cache_.erase(it);
    stats_.cached_bytes -= block;
    ++stats_.cache_hits;
    Hand(ptr, block, bytes);
    return ptr;
  }

  absl::StatusOr<void*> fresh = source_->Malloc(size);
  if (!fresh.ok() && absl::IsResourceExhausted(fresh.status()) &&
      !cache_.empty()) {
    // Cached blocks of other sizes may make room.
    ++stats_.cache_flushes;
    absl::Status released = ReleaseCacheLocked();
    if (!released.ok()) return released;
    fresh = source_->Malloc(size);
  }
  if (!fresh.ok()) {
    if (absl::IsResourceExhausted(fresh.status())) {
      return OutOfMemory(bytes, size, fresh.status());
    }
    return fresh.status();
  }
  ++stats_.device_mallocs;
  stats_.reserved_bytes += size;
  stats_.peak_reserved_bytes =
      std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  Hand(*fresh, size, bytes);
  return *fresh;
}

void CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return;
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    std::fprintf(stderr, "switchyard: %s allocator: Free of unknown pointer %p\n",
                 source_->DeviceName().c_str(), ptr);
    return;
  }
  const Block block = it->second;
  in_use_.erase(it);
  stats_.allocated_bytes -= block.size;
  stats_.requested_bytes -= block.requested;
  stats_.cached_bytes += block.size;
  cache_.emplace(block.size, ptr);
}

absl::Status CachingAllocator::ReleaseCache() {
  absl::MutexLock lock(&mu_);
  return ReleaseCacheLocked();
}

absl::Status CachingAllocator::ReleaseCacheLocked() {
  if (cache_.empty()) return absl::OkStatus();
  absl::Status synced = source_->Synchronize();
  if (!synced.ok()) return synced;
  absl::Status result = absl::OkStatus();
  for (auto it = cache_.begin(); it != cache_.end();) {
    absl::Status freed = source_->Free(it->second);
    ++stats_.device_frees;
    if (!freed.ok() && result.ok()) result = freed;
    // A block whose free failed is dropped anyway: keeping it would hand out
    // memory in an unknown state.
    stats_.cached_bytes -= it->first;
    stats_.reserved_bytes -= it->first;
    it = cache_.erase(it);
  }
  return result;
}

absl::Status CachingAllocator::OutOfMemory(size_t bytes, size_t block_size,
                                           const absl::Status& cause) {
  size_t free_bytes = 0, total_bytes = 0;
  const absl::Status info = source_->MemoryInfo(&free_bytes, &total_bytes);
  const std::string device_memory =
      info.ok() ? absl::StrCat("the device has ", FormatBytes(free_bytes),
                               " free of ", FormatBytes(total_bytes))
                : absl::StrCat("the device's free memory is unknown (",
                               info.message(), ")");
  return absl::ResourceExhaustedError(absl::StrCat(
      source_->DeviceName(), " is out of memory: cannot allocate ",
      FormatBytes(bytes), " (", bytes, " bytes",
      block_size != 0 && block_size != bytes
          ? absl::StrCat(", a block of ", block_size, " bytes")
          : "",
      "); ", device_memory, "; Switchyard holds ",
      FormatBytes(stats_.reserved_bytes), " there (",
      FormatBytes(stats_.allocated_bytes), " in use, ",
      FormatBytes(stats_.cached_bytes),
      " cached). Free tensors you no longer need, use a smaller batch, or "
      "use another device. (", cause.message(), ")"));
}

AllocatorStats CachingAllocator::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void CachingAllocator::ResetPeakStats() {
  absl::MutexLock lock(&mu_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

}  // namespace cuda
}  // namespace switchyard
