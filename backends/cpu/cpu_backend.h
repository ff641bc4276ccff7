#ifndef SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_
#define SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_

#include <memory>

#include "core/backend.h"

namespace switchyard {
namespace cpu {

// The Eigen CPU backend: one device, "cpu:0", in host memory, with kernels
// for every op in ops/ (backends/cpu/kernels/, one file per op). Linking
// //backends/cpu registers it in BackendRegistry::Global().
//
// Options (BackendRegistry::SetOption, the CLI's --backend_option):
//   threads  worker threads, the caller included (integer >= 1); default:
//            the SWITCHYARD_CPU_THREADS environment variable, else all cores
//   fusion   on (default) or off: conv2d(+bias)->relu and
//            linear(+bias)->relu run as one kernel with a fused ReLU
//
//   registry.SetOption("cpu", "threads", "2");
std::unique_ptr<Backend> CreateCpuBackend();

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_CPU_BACKEND_H_
