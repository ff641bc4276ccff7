#ifndef SWITCHYARD_RUNTIME_ELAPSED_H_
#define SWITCHYARD_RUNTIME_ELAPSED_H_

// Milliseconds between two points of the monotonic clock, the unit every
// runtime timing and report uses.

#include <chrono>

namespace switchyard {
namespace runtime {

using Clock = std::chrono::steady_clock;

inline double Ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_ELAPSED_H_
