#ifndef SWITCHYARD_CORE_RUN_MEMORY_H_
#define SWITCHYARD_CORE_RUN_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/backend.h"
#include "core/device.h"

namespace switchyard {

// Memory one run used on one device, from the device's caching allocator
// (devices without one report nothing). Bytes are the allocator's blocks:
// tensors, a plan's intermediate buffers and the outputs; kernels' own
// workspace is made once per compiled plan, not per run, and is not counted.
struct DeviceMemoryUse {
  Device device = Device::Cpu();
  int64_t start_bytes = 0;  // in use when the run began (weights, compiled plans)
  int64_t peak_bytes = 0;   // the most in use at once during the run
  int64_t end_bytes = 0;    // in use when it ended (its outputs included)
  int64_t new_blocks = 0;   // blocks the allocator took from the device
  int64_t new_bytes = 0;    // ... and their bytes (0: all from the cache)

  // "cpu:0: peak 12.00 MiB (8.00 MiB before the run), 0 new blocks"
  std::string ToString() const;
};

// Watches the caching allocators of `devices` from construction until
// Finish (or destruction): what ExecutablePlan::Run and OnnxModel::Run
// report through RunOptions::memory, and what `switchyard run` prints.
// Devices without a caching allocator, and repeats, are skipped.
//
//   RunMemoryWatch watch({device});
//   ... run ...
//   std::vector<DeviceMemoryUse> use = watch.Finish();
class RunMemoryWatch {
 public:
  explicit RunMemoryWatch(absl::Span<BackendDevice* const> devices);
  ~RunMemoryWatch();
  RunMemoryWatch(const RunMemoryWatch&) = delete;
  RunMemoryWatch& operator=(const RunMemoryWatch&) = delete;

  // Each watched device's figures, in the order given; the watch ends.
  std::vector<DeviceMemoryUse> Finish();

 private:
  struct Watched {
    BackendDevice* device;
    int64_t id;
  };
  std::vector<Watched> watched_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_RUN_MEMORY_H_
