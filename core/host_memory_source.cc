#include "core/host_memory_source.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/host_memory.h"

namespace switchyard {

namespace {

// Blocks this large are placed on 2 MiB boundaries and offered to the
// kernel's transparent huge pages: a model's weights are hundreds of MB,
// and touching them first in 4 KiB pages costs one fault per page (VGG11's
// 133M parameters: 130,000 faults, seconds on a virtual machine).
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugePageMinBytes = 2 * kHugePage;

}  // namespace

absl::StatusOr<void*> HostMemorySource::Malloc(size_t bytes) {
  const size_t alignment = bytes >= kHugePageMinBytes ? std::max(alignment_, kHugePage)
                                                      : alignment_;
  // aligned_alloc wants a multiple of the alignment; near SIZE_MAX the
  // rounding would wrap to a tiny size.
  if (bytes > std::numeric_limits<size_t>::max() - alignment) {
    return absl::ResourceExhaustedError("the size overflows");
  }
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* data = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("aligned_alloc of ", rounded, " bytes failed"));
  }
  // Advice only: where huge pages are off ("never") this does nothing.
  if (alignment == kHugePage) madvise(data, rounded, MADV_HUGEPAGE);
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
