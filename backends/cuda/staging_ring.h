#ifndef SWITCHYARD_BACKENDS_CUDA_STAGING_RING_H_
#define SWITCHYARD_BACKENDS_CUDA_STAGING_RING_H_

// The host-side order of a copy staged through a ring of pinned slots
// (issue 41, item 4): which slot each chunk uses, and when the host must
// wait for a slot's last copy before it writes into the slot (upload) or
// reads from it (download). Plain C++: the CUDA steps are behind
// StagingSteps, which pinned_staging.cc implements with one event per slot
// on the device's copy stream, and the tests with fakes.
//
// The ring turns on across copies, so back-to-back small uploads use
// different slots and the host does not wait for the previous one's DMA.
// A slot is written or read by the host only after the last copy queued
// through it has been waited for (WaitForSlot); a slot whose copy was
// already waited for is not waited for again.
//
//   StagingRing ring(/*slots=*/4, /*chunk_bytes=*/8 << 20);
//   SY_RETURN_IF_ERROR(ring.Upload(bytes, steps));

#include <cstddef>
#include <vector>

#include "absl/status/status.h"

namespace switchyard {
namespace cuda {

// One staged copy's steps; `offset` and `n` are bytes of the user's buffer.
class StagingSteps {
 public:
  virtual ~StagingSteps() = default;
  // Blocks until the last copy queued through `slot` has finished.
  virtual absl::Status WaitForSlot(int slot) = 0;
  // Upload: the host copies [offset, offset + n) of the source into `slot`.
  virtual void FillSlot(int slot, size_t offset, size_t n) = 0;
  // Download: the host copies `slot` into [offset, offset + n) of the
  // destination.
  virtual void EmptySlot(int slot, size_t offset, size_t n) = 0;
  // Queues the DMA of [offset, offset + n) between `slot` and the device,
  // then the slot's event after it.
  virtual absl::Status QueueCopy(int slot, size_t offset, size_t n) = 0;
};

class StagingRing {
 public:
  // `slots` >= 1 and `chunk_bytes` >= 1 (clamped up to 1).
  StagingRing(int slots, size_t chunk_bytes);

  // Chunk by chunk: wait for the slot if a copy through it is pending, fill
  // it, queue its DMA. Returns once the source has been read; the DMAs of
  // the last chunks are still queued.
  absl::Status Upload(size_t bytes, StagingSteps& steps);
  // Queues up to slots() chunks ahead, and empties each slot once its DMA
  // has finished. Returns once the data is in the destination.
  absl::Status Download(size_t bytes, StagingSteps& steps);

  int slots() const { return static_cast<int>(pending_.size()); }
  size_t chunk_bytes() const { return chunk_bytes_; }
  // Whether a copy through `slot` was queued and not yet waited for.
  bool pending(int slot) const { return pending_[slot]; }

 private:
  // The next slot in ring order, waited for if a copy through it is pending.
  absl::Status ClaimSlot(StagingSteps& steps, int* slot);

  const size_t chunk_bytes_;
  std::vector<bool> pending_;
  int next_ = 0;
};

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_STAGING_RING_H_
