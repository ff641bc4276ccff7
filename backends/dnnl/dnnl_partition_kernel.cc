#include "backends/dnnl/dnnl_partition_kernel.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace onednn {

namespace {

// A step's description as a profiler part: "node: implementation", or one
// of the builder's reorders ("reorder: v", "to plain: v", "output: v"),
// which name the value.
KernelPart PartOf(const std::string& what) {
  KernelPart part;
  const size_t colon = what.find(": ");
  if (colon == std::string::npos) {
    part.name = what;
    return part;
  }
  const std::string head = what.substr(0, colon);
  const std::string tail = what.substr(colon + 2);
  const bool reorder = head == "reorder" || head == "to plain" || head == "output";
  part.name = reorder ? tail : head;
  part.kind = reorder ? "reorder" : tail;
  return part;
}

}  // namespace

absl::Status PartitionKernel::Run(absl::Span<const Tensor* const> inputs,
                                  absl::Span<Tensor* const> outputs) {
  if (inputs.size() != num_inputs_ || outputs.size() != num_outputs_) {
    return absl::InternalError(absl::StrCat(
        "a dnnl partition kernel takes ", num_inputs_, " inputs and ",
        num_outputs_, " outputs, got ", inputs.size(), " and ",
        outputs.size()));
  }
  for (const Binding& b : bindings_) {
    const Tensor* t = b.output ? outputs[b.index] : inputs[b.index];
    if (&t->backend_device() != &device_) {
      return absl::InternalError(absl::StrCat(
          "a dnnl partition kernel got a tensor on ", t->device().ToString(),
          ", not on its own ", device_.device().ToString()));
    }
    if (t->buffer()->size_bytes() < b.mem.get_desc().get_size()) {
      return absl::InternalError(absl::StrCat(
          "a dnnl partition kernel got a buffer of ", t->buffer()->size_bytes(),
          " bytes for a value of ", b.mem.get_desc().get_size()));
    }
    b.mem.set_data_handle(t->buffer()->data());
  }
  // This run's intermediates; given back when the run has finished.
  Workspace workspace;
  if (workspaces_ != nullptr && !workspace_bindings_.empty()) {
    absl::StatusOr<Workspace> borrowed = workspaces_->Borrow(device_, workspace_bytes_);
    if (!borrowed.ok()) {
      return absl::Status(borrowed.status().code(),
                          absl::StrCat("the dnnl device could not allocate ", workspace_bytes_,
                                       " bytes for a partition's intermediate values: ",
                                       borrowed.status().message()));
    }
    workspace = std::move(*borrowed);
    for (WorkspaceBinding& b : workspace_bindings_) {
      b.mem.set_data_handle(static_cast<char*>(workspace.data()) + b.offset);
    }
  }
  omp_set_num_threads(threads_);
  int current_threads = threads_;
  try {
    for (size_t i = 0; i < primitives_.size(); ++i) {
      // A primitive created for fewer threads runs on as many (oneDNN sizes
      // its scratchpad and work split at creation).
      const int threads = step_threads_[i] > 0 ? step_threads_[i] : threads_;
      if (threads != current_threads) {
        omp_set_num_threads(threads);
        current_threads = threads;
      }
      // On the CPU engine a primitive has finished when execute returns,
      // so a host step after it reads its result (and the host clock
      // brackets it, for a profiler's parts).
      std::vector<KernelPart>* const parts = part_sink();
      const auto start = parts != nullptr ? std::chrono::steady_clock::now()
                                          : std::chrono::steady_clock::time_point();
      if (host_steps_[i]) {
        host_steps_[i](args_[i]);
      } else {
        primitives_[i].execute(stream_, args_[i]);
      }
      if (parts != nullptr) {
        KernelPart part = PartOf(steps_[i]);
        part.start = start;
        part.end = std::chrono::steady_clock::now();
        parts->push_back(std::move(part));
      }
    }
    stream_.wait();
    if (current_threads != threads_) omp_set_num_threads(threads_);
  } catch (const dnnl::error& e) {
    omp_set_num_threads(threads_);
    return absl::InternalError(
        absl::StrCat("oneDNN failed running a partition: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
