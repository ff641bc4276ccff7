#include "backends/cuda/pinned_staging.h"

#include <algorithm>
#include <cstring>

#include "backends/cuda/cuda_status.h"

namespace switchyard {
namespace cuda {

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
                                     cudaStream_t stream) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  for (size_t offset = 0, chunk = 0; offset < bytes; offset += kChunkBytes, ++chunk) {
    const size_t n = std::min(kChunkBytes, bytes - offset);
    Slot& slot = slots_[chunk % kSlots];
    // The slot's previous DMA must have read it before it is overwritten.
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(slot.done), device_name_);
    std::memcpy(slot.host, from + offset, n);
    SY_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(to + offset, slot.host, n, cudaMemcpyHostToDevice, stream),
        device_name_);
    SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.done, stream), device_name_);
  }
  return absl::OkStatus();
}

absl::Status PinnedStaging::ToHost(const void* src, void* dst, size_t bytes,
                                   cudaStream_t stream) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  const size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  // Queue chunk i + 1's DMA before copying chunk i out of its slot.
  auto queue = [&](size_t chunk) -> absl::Status {
    const size_t offset = chunk * kChunkBytes;
    const size_t n = std::min(kChunkBytes, bytes - offset);
    Slot& slot = slots_[chunk % kSlots];
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(slot.done), device_name_);
    SY_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(slot.host, from + offset, n, cudaMemcpyDeviceToHost, stream),
        device_name_);
    SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.done, stream), device_name_);
    return absl::OkStatus();
  };
  if (chunks == 0) return absl::OkStatus();
  SY_RETURN_IF_ERROR(queue(0));
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    // Chunk + 1 goes to the other slot, which chunk - 1 has left.
    if (chunk + 1 < chunks && kSlots > 1) SY_RETURN_IF_ERROR(queue(chunk + 1));
    Slot& slot = slots_[chunk % kSlots];
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(slot.done), device_name_);
    const size_t offset = chunk * kChunkBytes;
    std::memcpy(to + offset, slot.host, std::min(kChunkBytes, bytes - offset));
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace switchyard
