#ifndef SWITCHYARD_CORE_BUFFER_H_
#define SWITCHYARD_CORE_BUFFER_H_

#include <cstddef>
#include <functional>
#include <utility>

#include "core/device.h"

namespace switchyard {

// A block of memory owned by one device's allocator. `data()` is an address
// in that device's address space (host memory for the CPU, device memory for
// a GPU): only that device's backend may dereference it. The memory goes back
// to the allocator when the Buffer is destroyed.
//
//   absl::StatusOr<std::shared_ptr<Buffer>> b = backend_device->Allocate(64);
//   (*b)->size_bytes() == 64
class Buffer {
 public:
  Buffer(Device device, void* data, size_t size_bytes,
         std::function<void(void*)> release)
      : device_(std::move(device)),
        data_(data),
        size_bytes_(size_bytes),
        release_(std::move(release)) {}
  ~Buffer() {
    if (release_) release_(data_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const Device& device() const { return device_; }
  void* data() const { return data_; }
  size_t size_bytes() const { return size_bytes_; }

 private:
  Device device_;
  void* data_;
  size_t size_bytes_;
  std::function<void(void*)> release_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_BUFFER_H_
