#include "backends/cuda/staging_ring.h"

#include <algorithm>
#include <deque>

#include "core/status_macros.h"

namespace switchyard {
namespace cuda {

StagingRing::StagingRing(int slots, size_t chunk_bytes)
    : chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
      pending_(static_cast<size_t>(std::max(slots, 1)), false) {}

absl::Status StagingRing::ClaimSlot(StagingSteps& steps, int* slot) {
  *slot = next_;
  next_ = (next_ + 1) % slots();
  if (pending_[*slot]) {
    SY_RETURN_IF_ERROR(steps.WaitForSlot(*slot));
    pending_[*slot] = false;
  }
  return absl::OkStatus();
}

absl::Status StagingRing::Upload(size_t bytes, StagingSteps& steps) {
  for (size_t offset = 0; offset < bytes; offset += chunk_bytes_) {
    const size_t n = std::min(chunk_bytes_, bytes - offset);
    int slot = 0;
    SY_RETURN_IF_ERROR(ClaimSlot(steps, &slot));
    steps.FillSlot(slot, offset, n);
    // Marked before queueing: if QueueCopy fails after its DMA went out,
    // the next user of the slot still waits.
    pending_[slot] = true;
    SY_RETURN_IF_ERROR(steps.QueueCopy(slot, offset, n));
  }
  return absl::OkStatus();
}

absl::Status StagingRing::Download(size_t bytes, StagingSteps& steps) {
  struct Queued {
    int slot;
    size_t offset;
    size_t n;
  };
  std::deque<Queued> queued;  // DMAs in flight, oldest first
  auto empty_oldest = [&]() -> absl::Status {
    const Queued q = queued.front();
    queued.pop_front();
    SY_RETURN_IF_ERROR(steps.WaitForSlot(q.slot));
    pending_[q.slot] = false;
    steps.EmptySlot(q.slot, q.offset, q.n);
    return absl::OkStatus();
  };
  for (size_t offset = 0; offset < bytes; offset += chunk_bytes_) {
    // With every slot in flight, the next in ring order is the oldest.
    if (static_cast<int>(queued.size()) == slots()) {
      SY_RETURN_IF_ERROR(empty_oldest());
    }
    const size_t n = std::min(chunk_bytes_, bytes - offset);
    int slot = 0;
    SY_RETURN_IF_ERROR(ClaimSlot(steps, &slot));
    pending_[slot] = true;
    SY_RETURN_IF_ERROR(steps.QueueCopy(slot, offset, n));
    queued.push_back({slot, offset, n});
  }
  while (!queued.empty()) SY_RETURN_IF_ERROR(empty_oldest());
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace switchyard
