#include "backends/cpu/cpu_context.h"

#include <algorithm>

namespace switchyard {
namespace cpu {

CpuContext::CpuContext(int threads) : threads_(std::max(1, threads)) {
  if (threads_ > 1) pool_ = std::make_unique<Eigen::ThreadPool>(threads_ - 1);
}

void CpuContext::ParallelFor(int64_t tasks,
                             const std::function<void(int64_t)>& fn) const {
  if (tasks <= 0) return;
  if (pool_ == nullptr || tasks == 1) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  Eigen::Barrier done(static_cast<unsigned int>(tasks - 1));
  for (int64_t t = 1; t < tasks; ++t) {
    pool_->Schedule([&fn, &done, t] {
      fn(t);
      done.Notify();
    });
  }
  fn(0);
  done.Wait();
}

void CpuContext::ParallelRange(
    int64_t n, const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  const int64_t parts = std::min<int64_t>(threads_, n);
  ParallelFor(parts, [&](int64_t part) {
    fn(n * part / parts, n * (part + 1) / parts);
  });
}

}  // namespace cpu
}  // namespace switchyard
