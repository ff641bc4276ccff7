#ifndef SWITCHYARD_CORE_HOST_CLOCK_H_
#define SWITCHYARD_CORE_HOST_CLOCK_H_

#include <chrono>
#include <vector>

#include "core/backend.h"

namespace switchyard {

// The default DeviceClock: synchronizes the device, then reads the host's
// steady clock. Exact for devices whose kernels are done when Run returns.
//
//   HostClock clock(device);
//   int a = *clock.Mark(); kernel->Run(...); int b = *clock.Mark();
//   double ms = *clock.ElapsedMs(a, b);
class HostClock : public DeviceClock {
 public:
  explicit HostClock(BackendDevice& device) : device_(device) {}
  absl::StatusOr<int> Mark() override;
  absl::StatusOr<double> ElapsedMs(int from, int to) override;

 private:
  BackendDevice& device_;
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_HOST_CLOCK_H_
