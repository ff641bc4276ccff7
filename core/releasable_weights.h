#ifndef SWITCHYARD_CORE_RELEASABLE_WEIGHTS_H_
#define SWITCHYARD_CORE_RELEASABLE_WEIGHTS_H_

// Weights held once. A kernel that copies a weight into its own layout (a
// oneDNN reorder into a blocked format) no longer reads the plain one, yet
// the model keeps it for the shapes it will compile next: two copies, as
// `run` on ViT-B/16 showed (719 MB of RSS against ONNX Runtime's 557-657).
// ONNX Runtime frees an initializer once its kernel has packed it; here a
// parameter's memory is given back instead (its whole pages, MADV_DONTNEED)
// and read again from where it came from (the model file) when anything
// reads it later: a new shape's compile, StateDict, a kernel on another
// device.
//
// A parameter takes part only when its owner registers it, with how to read
// its bytes back (OnnxModel: its range of the model file). Its pages are
// given back only while nothing may read it:
//  - a graph being compiled holds each such constant pinned (the Residency
//    the module attaches to it), until lowering sees that one node alone
//    reads it;
//  - a compiled plan pins the constants its steps read while it runs;
//  - the module pins a parameter while it copies it (StateDict, To).
// A backend gives the pages back through the constant's Residency right
// after it has made its own copy, and makes them resident again before it
// reads the plain values itself. A weight read back once is kept from then
// on: the workload compiles new shapes, and each would read it again. Restoring checks the bytes against a
// checksum taken at registration: a model file changed since it was loaded
// is an error, never a silently different weight.
//
// Lowering runs under LoweringLock so that no two lowerings interleave the
// release of one weight and a read of it.
//
//   ReleasableWeights::Global().Register(param, restore);
//   ... graph.AddConstant(name, param, *ReleasableWeights::Global().Residency(param));

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/buffer.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace switchyard {

class ReleasableWeights {
 public:
  // Writes the registered bytes to `dst` again (all `bytes` of them).
  using RestoreFn = std::function<absl::Status(void* dst, size_t bytes)>;

  struct Stats {
    int64_t released = 0;        // pages given back, times
    int64_t restored = 0;        // ... and read back
    int64_t released_bytes = 0;  // given back now
  };

  static ReleasableWeights& Global();

  // The bytes of `tensor` (in host memory, at least kMinBytes of them) can
  // be given back and restored by `restore`. The entry lasts as long as the
  // tensor's buffer.
  static constexpr size_t kMinBytes = size_t{256} << 10;
  void Register(const Tensor& tensor, RestoreFn restore);

  // Keeps the registered buffer holding `tensor` (or a view into it)
  // resident, restored first if it was given back, until the returned token
  // is destroyed. Null when `tensor` is not in a registered buffer.
  absl::StatusOr<std::shared_ptr<const void>> Pin(const Tensor& tensor);

  // The Residency a graph constant of `tensor` carries: pinned until lowering
  // unpins it. Null when `tensor` is not in a registered buffer.
  absl::StatusOr<std::shared_ptr<ConstantResidency>> Residency(const Tensor& tensor);

  Stats stats() const;

 private:
  class Entry;
  class GraphResidency;
  // The entry holding `tensor`, resident and pinned once more; null when
  // there is none.
  absl::StatusOr<std::shared_ptr<Entry>> PinEntry(const Tensor& tensor);
  // The live entry whose buffer holds `address`, or null.
  std::shared_ptr<Entry> Find(const void* address) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status MakeResident(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseIfUnpinned(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unpin(const std::shared_ptr<Entry>& entry);

  mutable absl::Mutex mu_;
  // By the buffer's first byte.
  std::map<uintptr_t, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

// Held by ExecutablePlan::Lower while it creates kernels (see above).
absl::Mutex& LoweringLock();

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_RELEASABLE_WEIGHTS_H_
