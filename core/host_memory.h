#ifndef SWITCHYARD_CORE_HOST_MEMORY_H_
#define SWITCHYARD_CORE_HOST_MEMORY_H_

#include <cstdint>

namespace switchyard {

// The machine's memory as every host backend reports it: physical bytes and
// the bytes a new allocation can still get. "Available" is /proc/meminfo's
// MemAvailable, which counts page cache the kernel would reclaim (sysconf's
// free pages do not, and read near zero on a busy machine); sysconf is the
// fallback where /proc is missing. -1 when unknown.
struct HostMemory {
  int64_t total_bytes = -1;
  int64_t available_bytes = -1;
};

HostMemory ReadHostMemory();

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_HOST_MEMORY_H_
