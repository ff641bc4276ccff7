#ifndef SWITCHYARD_CORE_HOST_MEMORY_SOURCE_H_
#define SWITCHYARD_CORE_HOST_MEMORY_SOURCE_H_

#include <cstddef>
#include <string>
#include <utility>

#include "core/caching_allocator.h"

namespace switchyard {

// Host memory for a CachingAllocator: blocks aligned to `alignment` bytes
// (a power of two) from aligned_alloc. Synchronize has nothing to wait for
// (host kernels finish before they return); MemoryInfo reads the machine's
// physical and available pages.
class HostMemorySource : public MemorySource {
 public:
  HostMemorySource(std::string device_name, size_t alignment)
      : device_name_(std::move(device_name)), alignment_(alignment) {}

  absl::StatusOr<void*> Malloc(size_t bytes) override;
  absl::Status Free(void* ptr) override;
  absl::Status Synchronize() override { return absl::OkStatus(); }
  absl::Status MemoryInfo(size_t* free_bytes, size_t* total_bytes) override;
  std::string DeviceName() const override { return device_name_; }
  bool host_addressable() const override { return true; }

 private:
  const std::string device_name_;
  const size_t alignment_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_HOST_MEMORY_SOURCE_H_
