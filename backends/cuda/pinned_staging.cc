#include "backends/cuda/pinned_staging.h"

#include <cstring>

#include "backends/cuda/cuda_status.h"

namespace switchyard {
namespace cuda {

// The ring's steps for one copy: `host` is the pageable side, `device` the
// device side, both at offset 0 of the copy.
class PinnedStaging::Steps : public StagingSteps {
 public:
  Steps(PinnedStaging& staging, const void* src, void* dst, bool to_device,
        cudaStream_t stream, cudaEvent_t first_dma, cudaEvent_t last_dma)
      : staging_(staging),
        src_(static_cast<const char*>(src)),
        dst_(static_cast<char*>(dst)),
        to_device_(to_device),
        stream_(stream),
        first_dma_(first_dma),
        last_dma_(last_dma) {}

  absl::Status WaitForSlot(int slot) override {
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staging_.slots_[slot].done),
                            staging_.device_name_);
    return absl::OkStatus();
  }
  void FillSlot(int slot, size_t offset, size_t n) override {
    std::memcpy(staging_.slots_[slot].host, src_ + offset, n);
  }
  void EmptySlot(int slot, size_t offset, size_t n) override {
    std::memcpy(dst_ + offset, staging_.slots_[slot].host, n);
  }
  absl::Status QueueCopy(int slot, size_t offset, size_t n) override {
    const std::string& name = staging_.device_name_;
    Slot& s = staging_.slots_[slot];
    if (!started_ && first_dma_ != nullptr) {
      SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(first_dma_, stream_), name);
    }
    started_ = true;
    if (to_device_) {
      SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst_ + offset, s.host, n,
                                              cudaMemcpyHostToDevice, stream_),
                              name);
    } else {
      SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.host, src_ + offset, n,
                                              cudaMemcpyDeviceToHost, stream_),
                              name);
    }
    SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(s.done, stream_), name);
    // Re-recorded after every chunk: the last record is the last DMA.
    if (last_dma_ != nullptr) {
      SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(last_dma_, stream_), name);
    }
    return absl::OkStatus();
  }

 private:
  PinnedStaging& staging_;
  const char* src_;
  char* dst_;
  const bool to_device_;
  const cudaStream_t stream_;
  const cudaEvent_t first_dma_;
  const cudaEvent_t last_dma_;
  bool started_ = false;
};

absl::StatusOr<std::unique_ptr<PinnedStaging>> PinnedStaging::Create(
    const std::string& device_name) {
  std::unique_ptr<PinnedStaging> staging(new PinnedStaging(device_name));
  for (Slot& slot : staging->slots_) {
    SY_CUDA_RETURN_IF_ERROR(
        cudaHostAlloc(&slot.host, kChunkBytes, cudaHostAllocPortable),
        device_name);
    SY_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming),
        device_name);
  }
  return staging;
}

PinnedStaging::~PinnedStaging() {
  for (Slot& slot : slots_) {
    // Errors cannot be returned from here; the process may be exiting.
    if (slot.done != nullptr) {
      cudaEventSynchronize(slot.done);
      cudaEventDestroy(slot.done);
    }
    if (slot.host != nullptr) cudaFreeHost(slot.host);
  }
}

absl::Status PinnedStaging::ToDevice(const void* src, void* dst, size_t bytes,
                                     cudaStream_t stream, cudaEvent_t first_dma,
                                     cudaEvent_t last_dma) {
  Steps steps(*this, src, dst, /*to_device=*/true, stream, first_dma, last_dma);
  return ring_.Upload(bytes, steps);
}

absl::Status PinnedStaging::ToHost(const void* src, void* dst, size_t bytes,
                                   cudaStream_t stream, cudaEvent_t first_dma,
                                   cudaEvent_t last_dma) {
  Steps steps(*this, src, dst, /*to_device=*/false, stream, first_dma, last_dma);
  return ring_.Download(bytes, steps);
}

}  // namespace cuda
}  // namespace switchyard
