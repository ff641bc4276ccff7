#ifndef SWITCHYARD_BACKENDS_CUDA_CACHING_ALLOCATOR_H_
#define SWITCHYARD_BACKENDS_CUDA_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace switchyard {
namespace cuda {

// Where a CachingAllocator gets its memory: cudaMalloc/cudaFree on one device
// in the backend, a fake in tests. No CUDA types, so the allocator's policy
// is tested on machines without a GPU.
class DeviceMemorySource {
 public:
  virtual ~DeviceMemorySource() = default;
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
  int64_t device_mallocs = 0;        // successful DeviceMemorySource::Malloc
  int64_t device_frees = 0;          // DeviceMemorySource::Free calls
  int64_t cache_flushes = 0;         // times an allocation emptied the cache
};

// A caching allocator for one device, in the manner of PyTorch's
// CUDACachingAllocator but without block splitting: cudaMalloc and cudaFree
// are slow and synchronize the device, so freed blocks are kept and handed
// out again.
//
// Size classes: a request is rounded up to a multiple of 512 bytes up to
// 1 MiB and to a multiple of 2 MiB above, and becomes one block of that
// size. A freed block serves later requests of its exact class (small
// blocks) or of a class at most 1/8 smaller than itself (large blocks, so
// that a cached 72 MiB block serves a 64 MiB request but not a 4 MiB one).
//
// All work of a device runs on its one stream, so a block freed while
// kernels that use it are still queued can be handed out at once: the next
// user's work is queued behind them. Blocks go back to the device only in
// ReleaseCache() (or when an allocation fails: the cache is released and the
// allocation tried once more), after a Synchronize().
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
  static constexpr size_t kSmallRounding = 512;
  static constexpr size_t kLargeThreshold = size_t{1} << 20;  // 1 MiB
  static constexpr size_t kLargeRounding = size_t{2} << 20;   // 2 MiB

  explicit CachingAllocator(std::unique_ptr<DeviceMemorySource> source);
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Returns cached blocks to the device. Blocks still handed out are the
  // owner's bug; they are reported on stderr and not freed.
  ~CachingAllocator();

  // The block size a request of `bytes` gets (0 counts as 1); 0 when the
  // rounding would overflow.
  static size_t BlockSize(size_t bytes);

  // A block of at least `bytes`, aligned as the source aligns (cudaMalloc:
  // 256 bytes or more).
  absl::StatusOr<void*> Allocate(size_t bytes);
  // Gives a block back to the cache. Unknown pointers are ignored (and
  // reported on stderr): freeing must never fail.
  void Free(void* ptr);
  // Synchronizes, then frees every cached block on the device.
  absl::Status ReleaseCache();

  AllocatorStats stats() const;
  void ResetPeakStats();
  std::string DeviceName() const { return source_->DeviceName(); }

 private:
  struct Block {
    size_t size;
    size_t requested;
  };

  absl::Status ReleaseCacheLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OutOfMemory(size_t bytes, size_t block_size,
                           const absl::Status& cause)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Hand(void* ptr, size_t size, size_t requested)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<DeviceMemorySource> source_;
  mutable absl::Mutex mu_;
  // Free blocks by size (several blocks may share a size).
  std::multimap<size_t, void*> cache_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, Block> in_use_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

// "1.50 GiB", "512 B", "3.00 MiB": sizes in messages and device listings.
std::string FormatBytes(int64_t bytes);

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CACHING_ALLOCATOR_H_
