#include "core/host_clock.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

absl::StatusOr<std::unique_ptr<DeviceClock>> BackendDevice::CreateClock() {
  return std::unique_ptr<DeviceClock>(std::make_unique<HostClock>(*this));
}

absl::StatusOr<int> HostClock::Mark() {
  absl::Status synced = device_.Synchronize();
  if (!synced.ok()) return synced;
  marks_.push_back(std::chrono::steady_clock::now());
  return static_cast<int>(marks_.size()) - 1;
}

absl::StatusOr<double> HostClock::ElapsedMs(int from, int to) {
  const int n = static_cast<int>(marks_.size());
  if (from < 0 || to < 0 || from >= n || to >= n) {
    return absl::OutOfRangeError(absl::StrCat(
        "clock marks ", from, " and ", to, " requested, ", n, " recorded"));
  }
  return std::chrono::duration<double, std::milli>(marks_[to] - marks_[from])
      .count();
}

}  // namespace switchyard
