#ifndef SWITCHYARD_CORE_BUFFER_H_
#define SWITCHYARD_CORE_BUFFER_H_

#include <cstddef>
#include <functional>
#include <utility>

#include "core/device.h"

namespace switchyard {

class BackendDevice;  // core/backend.h

// A block of memory owned by one device's allocator, which it knows (as
// c10's DataPtr knows its device): reading, copying or moving a tensor needs
// nothing but the tensor. `data()` is an address in that device's address
// space (host memory for the CPU, device memory for a GPU): only that
// device's backend may dereference it. The memory goes back to the
// allocator when the Buffer is destroyed; a Buffer must not outlive its
// backend (backends in a registry live as long as the registry).
//
//   absl::StatusOr<std::shared_ptr<Buffer>> b = backend_device->Allocate(64);
//   (*b)->size_bytes() == 64; &(*b)->owner() == backend_device
class Buffer {
 public:
  Buffer(BackendDevice& owner, const Device& device, void* data,
         size_t size_bytes, std::function<void(void*)> release)
      : owner_(&owner),
        device_(device),
        data_(data),
        size_bytes_(size_bytes),
        release_(std::move(release)) {}
  ~Buffer() {
    if (release_) release_(data_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // The device whose allocator made this buffer.
  BackendDevice& owner() const { return *owner_; }
  const Device& device() const { return device_; }
  void* data() const { return data_; }
  size_t size_bytes() const { return size_bytes_; }

 private:
  BackendDevice* owner_;
  Device device_;
  void* data_;
  size_t size_bytes_;
  std::function<void(void*)> release_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_BUFFER_H_
