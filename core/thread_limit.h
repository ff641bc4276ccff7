#ifndef SWITCHYARD_CORE_THREAD_LIMIT_H_
#define SWITCHYARD_CORE_THREAD_LIMIT_H_

// The one rule for thread counts a user gives (--threads, the
// SWITCHYARD_CPU_THREADS and SWITCHYARD_DNNL_THREADS variables, a backend's
// threads option, Python's loader threads): at most 4 per core and at
// least 8 may be asked for, so that a typo cannot start 20,000 threads,
// which under a process limit hangs or aborts instead of failing.
//
//   if (threads > MaxThreadCount()) ...  // 8 on a 2-core machine

namespace switchyard {

// The machine's cores (std::thread::hardware_concurrency, at least 1).
int CoreCount();

// max(8, 4 * CoreCount()).
int MaxThreadCount();

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_THREAD_LIMIT_H_
