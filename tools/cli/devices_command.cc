#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli/commands.h"

namespace switchyard {
namespace cli {
namespace {

std::string MiB(int64_t bytes) {
  return bytes < 0 ? "?" : absl::StrFormat("%.0f MiB", bytes / 1048576.0);
}

// "  option cpu.threads=2  worker threads ...": what --backend_option sets.
void PrintOptions(const Backend& backend) {
  for (const BackendOption& option : backend.Options()) {
    std::printf("  option %s.%s=%s  %s\n", backend.type().c_str(),
                option.key.c_str(), option.value.c_str(), option.help.c_str());
  }
}

}  // namespace

absl::Status DevicesCommand(BackendRegistry& registry) {
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    if (!backend.ok()) {
      std::printf("%s: unavailable: %s\n", type.c_str(),
                  std::string(backend.status().message()).c_str());
      continue;
    }
    const int count = (*backend)->DeviceCount();
    if (count == 0) {
      std::printf("%s: no devices: %s\n", type.c_str(),
                  (*backend)->UnavailableReason().c_str());
      PrintOptions(**backend);
      continue;
    }
    std::printf("%s: %d device%s\n", type.c_str(), count, count == 1 ? "" : "s");
    for (int i = 0; i < count; ++i) {
      DeviceInfo info = (*backend)->GetDevice(i).Info();
      std::string line = absl::StrCat("  ", info.device.ToString(), "  ", info.name,
                                      "  memory ", MiB(info.free_memory_bytes),
                                      " free / ", MiB(info.total_memory_bytes),
                                      " total");
      for (const auto& [key, value] : info.properties) {
        absl::StrAppend(&line, "  ", key, " ", value);
      }
      std::printf("%s\n", line.c_str());
    }
    PrintOptions(**backend);
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
