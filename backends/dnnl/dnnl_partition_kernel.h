#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_KERNEL_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_KERNEL_H_

// The kernel of a dnnl partition: oneDNN primitives created once (by
// PartitionBuilder, dnnl_builder.h) and executed in order, with host steps
// among them for work oneDNN has no primitive for (dnnl_concat_norm.h).
// Run() only points the edge memories at the tensors it is given and
// executes.

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/tensor.h"
#include "core/workspace_pool.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {

class PartitionKernel : public Kernel {
 public:
  // A memory whose data handle is the partition's input or output `index`.
  struct Binding {
    bool output;
    int index;
    dnnl::memory mem;
  };

  // A memory whose data handle is `offset` bytes into the workspace the
  // kernel borrows for a run.
  struct WorkspaceBinding {
    dnnl::memory mem;
    size_t offset;
  };

  PartitionKernel(BackendDevice& device, dnnl::engine engine,
                  int threads, size_t num_inputs, size_t num_outputs)
      : device_(device),
        engine_(std::move(engine)),
        stream_(engine_),
        threads_(threads),
        num_inputs_(num_inputs),
        num_outputs_(num_outputs) {}

  // Not reentrant: the memories bound to edges and workspace are the
  // kernel's own. Runs of one plan are serialized (core/executable_plan.h).
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override;
  // Only the inputs bound to a primitive's memory: constants copied into
  // the kernel's own layout (AddOwned) are not read again.
  bool ReadsInputAtRun(int index) const override {
    for (const Binding& b : bindings_) {
      if (!b.output && b.index == index) return true;
    }
    return false;
  }

  // What each primitive is, in order (KernelSteps, dnnl_partition.h).
  const std::vector<std::string>& steps() const { return steps_; }

  // A step run on the host, given its arguments' memories (their data
  // handles bound for this run).
  using HostStep =
      std::function<void(const std::unordered_map<int, dnnl::memory>&)>;

  // Filled by the builder.
  // `threads`: the OpenMP threads it was created for and runs on (0: the
  // kernel's).
  void AddPrimitive(dnnl::primitive primitive,
                    std::unordered_map<int, dnnl::memory> args,
                    std::string what, int threads = 0) {
    primitives_.push_back(std::move(primitive));
    step_threads_.push_back(threads);
    host_steps_.emplace_back();
    args_.push_back(std::move(args));
    steps_.push_back(std::move(what));
  }
  void AddHostStep(HostStep step, std::unordered_map<int, dnnl::memory> args,
                   std::string what) {
    primitives_.emplace_back();
    step_threads_.push_back(0);
    host_steps_.push_back(std::move(step));
    args_.push_back(std::move(args));
    steps_.push_back(std::move(what));
  }
  void AddBinding(Binding binding) { bindings_.push_back(std::move(binding)); }
  // Weights, biases, statistics (held while the kernel lives, shared with
  // other kernels through the device's PreparedWeights); returns the index.
  int AddOwned(std::shared_ptr<const dnnl::memory> mem) {
    owned_.push_back(std::move(mem));
    return static_cast<int>(owned_.size()) - 1;
  }
  const dnnl::memory& owned(int index) const { return *owned_[index]; }
  // Each run borrows `bytes` from `pool` (which outlives the kernel: the
  // device's) for the intermediates and scratchpads.
  void SetWorkspace(WorkspacePool* pool, size_t bytes) {
    workspaces_ = pool;
    workspace_bytes_ = bytes;
  }
  void AddWorkspaceBinding(WorkspaceBinding binding) {
    workspace_bindings_.push_back(std::move(binding));
  }

 private:
  BackendDevice& device_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  int threads_;
  size_t num_inputs_, num_outputs_;
  std::vector<dnnl::primitive> primitives_;  // empty for a host step
  std::vector<int> step_threads_;             // 0: threads_
  std::vector<HostStep> host_steps_;          // empty for a primitive
  std::vector<std::unordered_map<int, dnnl::memory>> args_;
  std::vector<Binding> bindings_;
  std::vector<std::shared_ptr<const dnnl::memory>> owned_;  // weights, ...
  WorkspacePool* workspaces_ = nullptr;
  size_t workspace_bytes_ = 0;
  std::vector<WorkspaceBinding> workspace_bindings_;
  std::vector<std::string> steps_;    // what each primitive is, in order
};

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_KERNEL_H_
