#include "core/thread_limit.h"

#include <algorithm>
#include <thread>

namespace switchyard {

int CoreCount() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int MaxThreadCount() { return std::max(8, 4 * CoreCount()); }

}  // namespace switchyard
