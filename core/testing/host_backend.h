#ifndef SWITCHYARD_CORE_TESTING_HOST_BACKEND_H_
#define SWITCHYARD_CORE_TESTING_HOST_BACKEND_H_

#include <atomic>
#include <memory>
#include <string>

#include "core/backend.h"

namespace switchyard {
namespace testing {

// Counts what a test backend was asked to do, so tests can prove that an
// error came before any allocation or kernel.
struct HostBackendCounters {
  std::atomic<int> allocations{0};
  std::atomic<int> kernels_created{0};
  std::atomic<int> kernels_run{0};
  std::atomic<int> copies_from_host{0};
  std::atomic<int> copies_to_host{0};
  // >= 0: Synchronize fails once more kernels than this have run, as an
  // asynchronous device reports a kernel's fault (a CUDA kernel's bad
  // address) at the next synchronisation.
  std::atomic<int> fault_after_kernels{-1};
  // CopyFromHostAsync calls, and whether they behave as a device with a copy
  // stream: the bytes land (read from the source then) only once the
  // copy's event is waited on (WaitEvent, the event's or the device's
  // Synchronize), so a caller that runs a kernel on the destination before
  // waiting, or reuses the source too early, computes on stale data.
  std::atomic<int> async_copies{0};
  std::atomic<bool> deferred_async_copies{false};
};

// A backend for core tests: any type name, `device_count` devices, host
// memory, and float32 kernels for "relu" and "add" only (enough to run small
// graphs). With `host_memory` its devices say so (BackendDevice::
// host_memory), and copies to and from them skip core's staging buffer.
//
//   BackendRegistry registry;
//   auto counters = std::make_shared<HostBackendCounters>();
//   registry.Register("fake", [=] { return MakeHostBackend("fake", 2,
//   counters); });
std::unique_ptr<Backend> MakeHostBackend(
    const std::string& type, int device_count,
    std::shared_ptr<HostBackendCounters> counters =
        std::make_shared<HostBackendCounters>(),
    bool host_memory = false);

}  // namespace testing
}  // namespace switchyard

#endif  // SWITCHYARD_CORE_TESTING_HOST_BACKEND_H_
