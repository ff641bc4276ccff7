// BackendDevice's asynchronous copies and events, as a device whose work is
// finished when each call returns sees them (core/backend.h): the copy runs
// at once, and an event is the device's Synchronize.

#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

constexpr size_t kHostStagingAlignment = 64;

// Happens when everything queued on `device` before it was made has
// finished: waiting on it synchronizes the device, which may wait for more
// than that, never for less.
class SynchronizingEvent : public DeviceEvent {
 public:
  explicit SynchronizingEvent(BackendDevice& device) : device_(device) {}
  absl::Status Synchronize() override { return device_.Synchronize(); }

 private:
  BackendDevice& device_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<void>> BackendDevice::AllocateHostStaging(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment, and a block for 0 too.
  const size_t rounded =
      (bytes / kHostStagingAlignment + 1) * kHostStagingAlignment;
  if (rounded < bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("host staging buffer of ", bytes, " bytes for ",
                     device().ToString(), ": too large"));
  }
  void* block = std::aligned_alloc(kHostStagingAlignment, rounded);
  if (block == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of host memory for a staging buffer of ", bytes,
                     " bytes for ", device().ToString()));
  }
  return std::shared_ptr<void>(block, [](void* p) { std::free(p); });
}

absl::StatusOr<std::unique_ptr<DeviceEvent>> BackendDevice::CopyFromHostAsync(
    const void* src, Buffer& dst, size_t bytes) {
  SY_RETURN_IF_ERROR(CopyFromHost(src, dst, bytes));
  return RecordEvent();
}

absl::StatusOr<std::unique_ptr<DeviceEvent>> BackendDevice::RecordEvent() {
  return std::unique_ptr<DeviceEvent>(std::make_unique<SynchronizingEvent>(*this));
}

absl::Status BackendDevice::WaitEvent(DeviceEvent& event) {
  // Without a queue to put the wait on, the host waits: later work then
  // starts after the event, as asked.
  return event.Synchronize();
}

}  // namespace switchyard
