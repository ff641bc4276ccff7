#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_H_

#include <cstdint>
#include <memory>

#include "backends/cpu/cpu_context.h"

namespace switchyard {
namespace cpu {

// Below this many elements a parallel split costs more than it saves.
constexpr int64_t kMinParallelElements = 1 << 15;

// Runs fn(begin, end) over [0, n) on all threads when n is large enough.
inline void ForEachRange(const CpuContext& context, int64_t n,
                         const std::function<void(int64_t, int64_t)>& fn) {
  if (n < kMinParallelElements) {
    fn(0, n);
  } else {
    context.ParallelRange(n, fn);
  }
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_ELEMENTWISE_H_
