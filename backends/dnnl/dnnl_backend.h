#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_BACKEND_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/backend.h"

namespace switchyard {
namespace onednn {

// The oneDNN backend: one device, "dnnl:0", that runs convolutional
// networks with Intel's oneDNN (Debian's libdnnl, 2.6, built with the
// OpenMP runtime) in oneDNN's own blocked memory layouts. It claims every
// maximal run of consecutive nodes placed on it as one partition and lowers
// it onto oneDNN primitives with post-op fusion (dnnl_partition.h); which
// ops it runs, and how each lowers, is one table (dnnl_op_table.h). The CPU ISA (AVX2, AVX-512,
// AMX) is chosen by oneDNN at run time and shown in `switchyard devices`.
//
// Built as a plugin, the way a vendor ships a backend:
//
//   switchyard --plugin=bazel-bin/backends/dnnl/libswitchyard_dnnl_plugin.so
//       --backend_option=dnnl.threads=2 run --model=vgg11 --device=dnnl:0
//
// Options: "threads" (OpenMP threads of the primitives; default
// SWITCHYARD_DNNL_THREADS, else every core), "isa" (read-only).
//
// Threads: Debian builds oneDNN with OpenMP (libgomp), whose parallel
// regions split work statically and wait at a barrier for every thread; on
// a machine where other processes take cores, a region lasts until the
// descheduled thread gets its time slice. Give it the cores it is told to
// use (or fewer threads), and set OMP_WAIT_POLICY=passive on a shared
// machine.
//
// The namespace is switchyard::onednn, not switchyard::dnnl, on purpose:
// inside a namespace named dnnl, oneDNN's own `dnnl::memory`,
// `dnnl::engine`, ... would name members of ours, so every use of the
// library would have to be spelled `::dnnl::` and a missed one fails with a
// puzzling "no member named 'memory' in namespace 'switchyard::dnnl'"
// (ONNX Runtime's provider avoids the clash the same way, with ort_dnnl).
inline constexpr char kDnnlType[] = "dnnl";
inline constexpr char kDnnlThreadsEnv[] = "SWITCHYARD_DNNL_THREADS";

absl::StatusOr<std::unique_ptr<Backend>> CreateDnnlBackend();

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_BACKEND_H_
