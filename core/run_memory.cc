#include "core/run_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/caching_allocator.h"
#include "core/format_bytes.h"

namespace switchyard {

std::string DeviceMemoryUse::ToString() const {
  return absl::StrCat(
      device.ToString(), ": peak ", FormatBytes(peak_bytes), " (",
      FormatBytes(start_bytes), " before the run), ", new_blocks, " new block",
      new_blocks == 1 ? "" : "s",
      new_blocks > 0 ? absl::StrCat(" (", FormatBytes(new_bytes), ")") : "");
}

RunMemoryWatch::RunMemoryWatch(absl::Span<BackendDevice* const> devices) {
  for (BackendDevice* device : devices) {
    if (device == nullptr || device->caching_allocator() == nullptr) continue;
    const bool seen =
        std::any_of(watched_.begin(), watched_.end(),
                    [device](const Watched& w) { return w.device == device; });
    if (seen) continue;
    watched_.push_back({device, device->caching_allocator()->BeginWatch()});
  }
}

RunMemoryWatch::~RunMemoryWatch() { Finish(); }

std::vector<DeviceMemoryUse> RunMemoryWatch::Finish() {
  std::vector<DeviceMemoryUse> use;
  for (const Watched& w : watched_) {
    const WatchedMemory seen = w.device->caching_allocator()->EndWatch(w.id);
    DeviceMemoryUse u;
    u.device = w.device->device();
    u.start_bytes = seen.start_bytes;
    u.peak_bytes = seen.peak_bytes;
    u.end_bytes = seen.end_bytes;
    u.new_blocks = seen.new_blocks;
    u.new_bytes = seen.new_bytes;
    use.push_back(u);
  }
  watched_.clear();
  return use;
}

}  // namespace switchyard
