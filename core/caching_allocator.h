#ifndef SWITCHYARD_CORE_CACHING_ALLOCATOR_H_
#define SWITCHYARD_CORE_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace switchyard {

// Where a CachingAllocator gets its memory: aligned host memory for the CPU,
// cudaMalloc/cudaFree on one GPU, a fake in tests. No device types here, so
// the allocator's policy is tested on any machine.
class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // ResourceExhausted when the device is out of memory (the allocator then
  // releases its cache and tries once more); any other error is passed on.
  virtual absl::StatusOr<void*> Malloc(size_t bytes) = 0;
  virtual absl::Status Free(void* ptr) = 0;
  // Waits until no queued work can still touch memory about to be freed.
  virtual absl::Status Synchronize() = 0;
  // The device's free and total memory (for out-of-memory messages).
  virtual absl::Status MemoryInfo(size_t* free_bytes, size_t* total_bytes) = 0;
  // "cuda:0".
  virtual std::string DeviceName() const = 0;
  // True when the host may touch the memory (the CPU): cached blocks are
  // then poisoned for AddressSanitizer, so a use after free is still found.
  virtual bool host_addressable() const { return false; }
};

// How a CachingAllocator rounds requests and how much it keeps.
struct CachingAllocatorOptions {
  // A request up to `large_threshold` bytes is rounded up to a multiple of
  // `small_rounding`, a larger one to a multiple of `large_rounding`.
  size_t small_rounding = 512;
  size_t large_threshold = size_t{1} << 20;  // 1 MiB
  size_t large_rounding = size_t{2} << 20;   // 2 MiB
  // Freed blocks kept for reuse at most; a block freed beyond it goes back
  // to the device at once.
  int64_t max_cached_bytes = std::numeric_limits<int64_t>::max();
};

// What a CachingAllocator holds and has done, like torch.cuda.memory_stats().
struct AllocatorStats {
  int64_t allocated_bytes = 0;       // blocks handed out now (block sizes)
  int64_t requested_bytes = 0;       // what was asked for those blocks
  int64_t reserved_bytes = 0;        // held from the device: allocated + cached
  int64_t cached_bytes = 0;          // free blocks kept for reuse
  int64_t peak_allocated_bytes = 0;  // since creation or ResetPeakStats()
  int64_t peak_reserved_bytes = 0;
  int64_t allocations = 0;           // successful Allocate calls
  int64_t cache_hits = 0;            // ... served from the cache
  int64_t device_mallocs = 0;        // successful MemorySource::Malloc
  int64_t device_malloc_bytes = 0;   // ... and their bytes, in all
  int64_t device_frees = 0;          // MemorySource::Free calls
  int64_t cache_flushes = 0;         // times an allocation emptied the cache
};

// What one watch (BeginWatch .. EndWatch) saw: a run's memory.
struct WatchedMemory {
  int64_t start_bytes = 0;   // allocated when the watch began
  int64_t peak_bytes = 0;    // the most allocated at once while it ran
  int64_t end_bytes = 0;     // allocated when it ended
  int64_t new_blocks = 0;    // blocks taken from the device meanwhile
  int64_t new_bytes = 0;     // ... and their bytes
};

// A caching allocator for one device, in the manner of PyTorch's
// CUDACachingAllocator but without block splitting: cudaMalloc and cudaFree
// are slow and synchronize the device, and fresh host memory costs a page
// fault per page, so freed blocks are kept and handed out again. Running the
// same shapes twice then takes nothing new from the device.
//
// Size classes (CachingAllocatorOptions): a request becomes one block of its
// rounded size. A freed block serves later requests of its exact class
// (small blocks) or of a class at most 1/8 smaller than itself (large
// blocks, so that a cached 72 MiB block serves a 64 MiB request but not a
// 4 MiB one).
//
// All work of a device runs in order (one stream, or the CPU's calls), so a
// block freed while kernels that use it are still queued can be handed out
// at once: the next user's work is queued behind them. Blocks go back to the
// device only in ReleaseCache(), beyond max_cached_bytes, or when an
// allocation fails (the cache is released and the allocation tried once
// more), after a Synchronize().
//
// Out of memory is ResourceExhausted naming the request, the device's free
// and total memory, and what this allocator holds.
//
//   CachingAllocator allocator(std::move(source));
//   absl::StatusOr<void*> p = allocator.Allocate(1000);   // a 1024-byte block
//   allocator.Free(*p);                                   // cached
//   allocator.Allocate(600);                              // the same block
//   allocator.ReleaseCache();                             // back to the device
class CachingAllocator {
 public:
  explicit CachingAllocator(std::unique_ptr<MemorySource> source,
                            const CachingAllocatorOptions& options = {});
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Returns cached blocks to the device. Blocks still handed out are the
  // owner's bug; they are reported on stderr and not freed.
  ~CachingAllocator();

  // The block size a request of `bytes` gets (0 counts as 1); 0 when the
  // rounding would overflow.
  static size_t BlockSize(size_t bytes, const CachingAllocatorOptions& options = {});

  // A block of at least `bytes`, aligned as the source aligns (cudaMalloc:
  // 256 bytes or more).
  absl::StatusOr<void*> Allocate(size_t bytes);
  // Gives a block back to the cache. Unknown pointers are ignored (and
  // reported on stderr): freeing must never fail.
  void Free(void* ptr);
  // Synchronizes, then frees every cached block on the device.
  absl::Status ReleaseCache();
  // Changes how much freed memory is kept (cached blocks beyond it go back).
  absl::Status SetMaxCachedBytes(int64_t bytes);
  int64_t max_cached_bytes() const;

  AllocatorStats stats() const;
  void ResetPeakStats();
  std::string DeviceName() const { return source_->DeviceName(); }

  // Watches: the peak and the fresh device memory of one stretch of work (a
  // run), independent of other watches and of ResetPeakStats. Work of other
  // threads on the same device in the meantime counts too.
  int64_t BeginWatch();
  // The watch's figures; it ends. Unknown ids give zeros.
  WatchedMemory EndWatch(int64_t id);

 private:
  struct Block {
    size_t size;
    size_t requested;
  };

  absl::Status ReleaseCacheLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Frees cached blocks, largest first, until at most `limit` bytes stay.
  absl::Status TrimCacheLocked(int64_t limit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OutOfMemory(size_t bytes, size_t block_size,
                           const absl::Status& cause)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Hand(void* ptr, size_t size, size_t requested)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Cache(void* ptr, size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Uncache(void* ptr, size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<MemorySource> source_;
  const bool poison_;  // host memory: poison cached blocks for ASan
  mutable absl::Mutex mu_;
  CachingAllocatorOptions options_ ABSL_GUARDED_BY(mu_);
  // Free blocks by size (several blocks may share a size).
  std::multimap<size_t, void*> cache_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, Block> in_use_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
  // Open watches by id: what they started from and the peak so far.
  struct Watch {
    int64_t start_bytes;
    int64_t peak_bytes;
    int64_t start_mallocs;
    int64_t start_malloc_bytes;
  };
  std::map<int64_t, Watch> watches_ ABSL_GUARDED_BY(mu_);
  int64_t next_watch_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_CACHING_ALLOCATOR_H_
