#ifndef SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_
#define SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_

#include <memory>

#include "absl/status/status.h"
#include "core/backend.h"
#include "core/backend_registry.h"

namespace switchyard {
namespace cpu {

// The Eigen CPU backend: one device, "cpu:0", in host memory, with kernels
// for every op in ops/ (backends/cpu/kernels/, one file per op). Linking
// //backends/cpu registers it in BackendRegistry::Global().
//
// Threads: all cores by default; the SWITCHYARD_CPU_THREADS environment
// variable or SetCpuThreads() choose another count.
std::unique_ptr<Backend> CreateCpuBackend();

// Sets the CPU device's thread count (>= 1) in `registry`, e.g. from a
// --threads flag. Takes effect for kernels created afterwards.
absl::Status SetCpuThreads(BackendRegistry& registry, int threads);

// The thread count the CPU device uses now.
int CpuThreads(BackendRegistry& registry);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_
