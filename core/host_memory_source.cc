#include "core/host_memory_source.h"

#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/host_memory.h"

namespace switchyard {

absl::StatusOr<void*> HostMemorySource::Malloc(size_t bytes) {
  // No transparent huge pages (MADV_HUGEPAGE): on the virtual machines this
  // project runs on, touching fresh huge pages cost 0.1 to 3.5 s per GB from
  // run to run against a steady 0.4 s in 4 KiB pages, and a detector over 8
  // photo sizes took 9.7-11.6 s with the advice against 7.5-7.7 s without
  // (VGG11's weights: 0.65-0.93 s against 0.39 s).
  // aligned_alloc wants a multiple of the alignment; near SIZE_MAX the
  // rounding would wrap to a tiny size.
  if (bytes > std::numeric_limits<size_t>::max() - alignment_) {
    return absl::ResourceExhaustedError("the size overflows");
  }
  const size_t rounded = (bytes + alignment_ - 1) / alignment_ * alignment_;
  void* data = std::aligned_alloc(alignment_, rounded == 0 ? alignment_ : rounded);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("aligned_alloc of ", rounded, " bytes failed"));
  }
  return data;
}

absl::Status HostMemorySource::Free(void* ptr) {
  std::free(ptr);
  return absl::OkStatus();
}

absl::Status HostMemorySource::MemoryInfo(size_t* free_bytes, size_t* total_bytes) {
  const HostMemory memory = ReadHostMemory();
  if (memory.total_bytes < 0 || memory.available_bytes < 0) {
    return absl::UnavailableError("neither /proc/meminfo nor sysconf gives the host's memory");
  }
  *free_bytes = static_cast<size_t>(memory.available_bytes);
  *total_bytes = static_cast<size_t>(memory.total_bytes);
  return absl::OkStatus();
}

}  // namespace switchyard
