#ifndef SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_
#define SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {

// Copies between pageable host memory and a device through a ring of pinned
// (page-locked) host buffers, in chunks, so that the copy engine runs
// asynchronously at full speed and the host's memcpy of one chunk overlaps
// the DMA of the previous one.
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
class PinnedStaging {
 public:
  static constexpr size_t kChunkBytes = size_t{8} << 20;
  static constexpr int kSlots = 2;

  // The current device must be the one the copies are for.
  static absl::StatusOr<std::unique_ptr<PinnedStaging>> Create(
      const std::string& device_name);
  ~PinnedStaging();

  absl::Status ToDevice(const void* src, void* dst, size_t bytes,
                        cudaStream_t stream);
  absl::Status ToHost(const void* src, void* dst, size_t bytes,
                      cudaStream_t stream);

 private:
  struct Slot {
    void* host = nullptr;
    cudaEvent_t done = nullptr;  // the last DMA that used `host`
  };
  explicit PinnedStaging(std::string device_name)
      : device_name_(std::move(device_name)) {}

  std::string device_name_;
  Slot slots_[kSlots];
};

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_PINNED_STAGING_H_
