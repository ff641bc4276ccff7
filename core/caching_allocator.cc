#include "core/caching_allocator.h"

#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/format_bytes.h"

namespace switchyard {

CachingAllocator::CachingAllocator(std::unique_ptr<MemorySource> source,
                                   const CachingAllocatorOptions& options)
    : source_(std::move(source)),
      poison_(source_->host_addressable()),
      options_(options) {}

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

size_t CachingAllocator::BlockSize(size_t bytes,
                                   const CachingAllocatorOptions& options) {
  bytes = std::max<size_t>(bytes, 1);
  const size_t rounding = bytes <= options.large_threshold
                              ? options.small_rounding
                              : options.large_rounding;
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
  for (auto& [id, watch] : watches_) {
    watch.peak_bytes = std::max(watch.peak_bytes, stats_.allocated_bytes);
  }
}

void CachingAllocator::Cache(void* ptr, size_t size) {
  stats_.cached_bytes += static_cast<int64_t>(size);
  cache_.emplace(size, ptr);
  // A kernel that still reads a freed tensor is a use after free, though
  // the memory stays mapped: ASan says so (no-op without ASan).
  if (poison_) ASAN_POISON_MEMORY_REGION(ptr, size);
}

void CachingAllocator::Uncache(void* ptr, size_t size) {
  stats_.cached_bytes -= static_cast<int64_t>(size);
  if (poison_) ASAN_UNPOISON_MEMORY_REGION(ptr, size);
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes) {
  absl::MutexLock lock(&mu_);
  const size_t size = BlockSize(bytes, options_);
  if (size == 0) {
    return OutOfMemory(bytes, size,
                       absl::ResourceExhaustedError("the size overflows"));
  }

  // The smallest cached block of this class or, for large blocks, at most
  // 1/8 larger.
  auto it = cache_.lower_bound(size);
  const size_t slack = size <= options_.large_threshold ? 0 : size / 8;
  if (it != cache_.end() && it->first - size <= slack) {
    void* ptr = it->second;
    const size_t block = it->first;
    cache_.erase(it);
    Uncache(ptr, block);
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
  stats_.device_malloc_bytes += static_cast<int64_t>(size);
  stats_.reserved_bytes += static_cast<int64_t>(size);
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
  stats_.allocated_bytes -= static_cast<int64_t>(block.size);
  stats_.requested_bytes -= static_cast<int64_t>(block.requested);
  Cache(ptr, block.size);
  if (stats_.cached_bytes > options_.max_cached_bytes) {
    absl::Status trimmed = TrimCacheLocked(options_.max_cached_bytes);
    if (!trimmed.ok()) {
      std::fprintf(stderr, "switchyard: trimming the %s cache: %s\n",
                   source_->DeviceName().c_str(), trimmed.ToString().c_str());
    }
  }
}

absl::Status CachingAllocator::ReleaseCache() {
  absl::MutexLock lock(&mu_);
  return ReleaseCacheLocked();
}

absl::Status CachingAllocator::ReleaseCacheLocked() { return TrimCacheLocked(0); }

absl::Status CachingAllocator::TrimCacheLocked(int64_t limit) {
  if (stats_.cached_bytes <= limit) return absl::OkStatus();
  absl::Status synced = source_->Synchronize();
  if (!synced.ok()) return synced;
  absl::Status result = absl::OkStatus();
  while (!cache_.empty() && stats_.cached_bytes > limit) {
    auto largest = std::prev(cache_.end());
    Uncache(largest->second, largest->first);
    absl::Status freed = source_->Free(largest->second);
    ++stats_.device_frees;
    if (!freed.ok() && result.ok()) result = freed;
    // A block whose free failed is dropped anyway: keeping it would hand out
    // memory in an unknown state.
    stats_.reserved_bytes -= static_cast<int64_t>(largest->first);
    cache_.erase(largest);
  }
  return result;
}

absl::Status CachingAllocator::SetMaxCachedBytes(int64_t bytes) {
  if (bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cache limit must be >= 0 bytes, not ", bytes));
  }
  absl::MutexLock lock(&mu_);
  options_.max_cached_bytes = bytes;
  return TrimCacheLocked(bytes);
}

int64_t CachingAllocator::max_cached_bytes() const {
  absl::MutexLock lock(&mu_);
  return options_.max_cached_bytes;
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

int64_t CachingAllocator::BeginWatch() {
  absl::MutexLock lock(&mu_);
  const int64_t id = next_watch_++;
  watches_[id] = Watch{stats_.allocated_bytes, stats_.allocated_bytes,
                       stats_.device_mallocs, stats_.device_malloc_bytes};
  return id;
}

WatchedMemory CachingAllocator::EndWatch(int64_t id) {
  absl::MutexLock lock(&mu_);
  auto it = watches_.find(id);
  if (it == watches_.end()) return WatchedMemory();
  const Watch& w = it->second;
  WatchedMemory seen;
  seen.start_bytes = w.start_bytes;
  seen.peak_bytes = w.peak_bytes;
  seen.end_bytes = stats_.allocated_bytes;
  seen.new_blocks = stats_.device_mallocs - w.start_mallocs;
  seen.new_bytes = stats_.device_malloc_bytes - w.start_malloc_bytes;
  watches_.erase(it);
  return seen;
}

}  // namespace switchyard
