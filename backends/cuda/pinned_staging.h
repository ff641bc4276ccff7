#ifndef SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_
#define SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_

// Copies between pageable host memory and a device through a ring of pinned
// (page-locked) host buffers, in chunks, so that the copy engine runs
// asynchronously at full speed and the host's memcpy of one chunk overlaps
// the DMA of the previous one.
//
// Issue 41, item 4: the copies go on the stream the caller gives, which is
// the device's copy stream (cuda_device.h says how it is ordered against
// compute). Each slot has an event recorded after the DMA that used it, and
// the host writes into (upload) or reads from (download) a slot only after
// that event has completed; StagingRing (staging_ring.h) holds that order
// in plain C++. Because the copy stream does not queue behind compute, a
// slot's wait is for its own DMA only, and the ring turns on across copies.
//
// Host to device returns as soon as the source has been read: the caller may
// free it at once, and the DMA of the last chunks completes in stream order
// (before any later work on the stream). Device to host returns when the
// data is in the destination.
//
// Not thread-safe: the device holds a lock around each copy. Where pinned
// memory cannot be had (a locked-memory limit), Create fails and the device
// falls back to plain cudaMemcpyAsync from pageable memory.
//
//   SY_ASSIGN_OR_RETURN(auto staging, PinnedStaging::Create("cuda:0"));
//   SY_RETURN_IF_ERROR(staging->ToDevice(host, device_ptr, bytes, stream));

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cuda/staging_ring.h"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {

class PinnedStaging {
 public:
  static constexpr size_t kChunkBytes = size_t{8} << 20;
  static constexpr int kSlots = 4;

  // The current device must be the one the copies are for.
  static absl::StatusOr<std::unique_ptr<PinnedStaging>> Create(
      const std::string& device_name);
  ~PinnedStaging();

  // `first_dma` and `last_dma` (optional, timing events) are recorded on
  // `stream` just before the first chunk's DMA and just after the last's,
  // so that the interval is the copy itself.
  absl::Status ToDevice(const void* src, void* dst, size_t bytes,
                        cudaStream_t stream, cudaEvent_t first_dma = nullptr,
                        cudaEvent_t last_dma = nullptr);
  absl::Status ToHost(const void* src, void* dst, size_t bytes,
                      cudaStream_t stream, cudaEvent_t first_dma = nullptr,
                      cudaEvent_t last_dma = nullptr);

 private:
  class Steps;
  struct Slot {
    void* host = nullptr;
    cudaEvent_t done = nullptr;  // the last DMA that used `host`
  };
  explicit PinnedStaging(std::string device_name)
      : device_name_(std::move(device_name)), ring_(kSlots, kChunkBytes) {}

  std::string device_name_;
  Slot slots_[kSlots];
  StagingRing ring_;
};

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_
