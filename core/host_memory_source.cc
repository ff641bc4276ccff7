#include "core/host_memory_source.h"

#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/host_memory.h"

namespace switchyard {

absl::StatusOr<void*> HostMemorySource::Malloc(size_t bytes) {
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
