#ifndef SWITCHYARD_BACKENDS_CPU_CPU_CONTEXT_H_
#define SWITCHYARD_BACKENDS_CPU_CPU_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace switchyard {
namespace cpu {

// The CPU device's threads, shared by its kernels. `threads` counts the
// calling thread: the pool holds threads - 1 workers and the caller runs
// one share of every ParallelFor itself.
//
//   context.ParallelFor(context.threads(), [&](int64_t task) { ... });
class CpuContext {
 public:
  explicit CpuContext(int threads);
  int threads() const { return threads_; }

  // Runs fn(0) ... fn(tasks - 1), spread over the threads, and returns when
  // all are done. Tasks should be of similar cost.
  void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn) const;

  // Splits [0, n) into at most threads() contiguous ranges of near-equal
  // size and runs fn(begin, end) on each.
  void ParallelRange(int64_t n,
                     const std::function<void(int64_t, int64_t)>& fn) const;

 private:
  int threads_;
  std::unique_ptr<Eigen::ThreadPool> pool_;  // null when threads_ == 1
};

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_CPU_CONTEXT_H_
