#include "core/host_memory.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace switchyard {
namespace {

// "MemTotal:       24587812 kB" -> bytes; -1 when the line is not `key`'s.
int64_t MeminfoLineBytes(absl::string_view line, absl::string_view key) {
  if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, ":")) return -1;
  line = absl::StripAsciiWhitespace(line);
  if (!absl::ConsumeSuffix(&line, " kB")) return -1;
  int64_t kib = 0;
  if (!absl::SimpleAtoi(line, &kib) || kib < 0 || kib > (int64_t{1} << 52)) return -1;
  return kib * 1024;
}

int64_t SysconfBytes(int pages_name) {
  const long pages = sysconf(pages_name);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages < 0 || page_size <= 0 ? -1 : int64_t{pages} * page_size;
}

}  // namespace

HostMemory ReadHostMemory() {
  HostMemory memory;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (int64_t b = MeminfoLineBytes(line, "MemTotal"); b >= 0) memory.total_bytes = b;
    if (int64_t b = MeminfoLineBytes(line, "MemAvailable"); b >= 0) memory.available_bytes = b;
  }
  if (memory.total_bytes < 0) memory.total_bytes = SysconfBytes(_SC_PHYS_PAGES);
  if (memory.available_bytes < 0) memory.available_bytes = SysconfBytes(_SC_AVPHYS_PAGES);
  return memory;
}

}  // namespace switchyard
