// ExecutablePlan::Run: binds inputs, runs the kernels in order, returns outputs.

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/executable_plan.h"
#include "core/profiler.h"
#include "core/run_memory.h"
#include "core/shared_memory.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

constexpr char kSyncEachNodeEnv[] = "SWITCHYARD_SYNC_EACH_NODE";

// SWITCHYARD_SYNC_EACH_NODE=1: each node's device is synchronised after
// the node, so that a fault of an asynchronous device (a CUDA kernel's bad
// address) is reported with the node that caused it, not by whichever call
// checks next. Slow; for finding such a fault.
bool SyncEachNode() {
  const char* value = std::getenv(kSyncEachNodeEnv);
  if (value == nullptr) return false;
  const std::string v = value;
  return v == "1" || v == "on" || v == "true" || v == "yes";
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> ExecutablePlan::Run(
    absl::Span<const Tensor> inputs, const RunOptions& options) {
  const std::vector<ValueId>& input_ids = graph_.inputs();
  if (inputs.size() != input_ids.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the plan takes ", input_ids.size(), " input(s), got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& expected = graph_.value(input_ids[i]);
    const Tensor& given = inputs[i];
    if (!given.defined() || given.shape() != *expected.shape ||
        given.dtype() != expected.dtype || given.device() != *expected.device) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", expected.name, "' must be ", DTypeName(expected.dtype),
          expected.shape->ToString(), " on ", expected.device->ToString(),
          ", got ",
          given.defined() ? absl::StrCat(DTypeName(given.dtype()),
                                         given.shape().ToString(), " on ",
                                         given.device().ToString())
                          : "an undefined tensor",
          "; compile a plan for this signature"));
    }
  }

  absl::MutexLock lock(&run_mu_);
  // The run's memory on each device (RunOptions::memory), when asked.
  std::optional<RunMemoryWatch> memory_watch;
  if (options.memory != nullptr) memory_watch.emplace(devices_used_);
  for (size_t i = 0; i < inputs.size(); ++i) values_[input_ids[i]] = inputs[i];
  // The intermediates' memory, this run's alone until it returns (after the
  // devices synchronised at its end).
  std::vector<Workspace> workspaces;
  for (const DeviceWorkspace& w : workspace_layout_) {
    SY_ASSIGN_OR_RETURN(Workspace borrowed, workspaces_->Borrow(*w.device, w.bytes));
    workspaces.push_back(std::move(borrowed));
  }
  std::vector<std::shared_ptr<Buffer>> slot_buffers(slot_places_.size());
  for (size_t s = 0; s < slot_places_.size(); ++s) {
    SY_ASSIGN_OR_RETURN(slot_buffers[s],
                        workspaces[slot_places_[s].workspace].View(
                            slot_places_[s].offset, buffer_plan_.slots[s].bytes));
  }

  // Profiling (optional): marks on each device's clock around each node.
  // A run that fails part way tells the profiler (AbortProfile).
  Profiler* const profiler = options.profiler;
  struct AbortProfile {
    Profiler* profiler;
    ~AbortProfile() {
      if (profiler != nullptr) profiler->OnRunAborted();
    }
  } abort_profile{profiler};
  if (profiler != nullptr) {
    SY_RETURN_IF_ERROR(profiler->OnRunStart(graph_, devices_used_));
  }

  const bool sync_each_node = SyncEachNode();
  std::vector<const Tensor*> operand_ptrs;
  std::vector<Tensor*> output_ptrs;
  std::vector<KernelPart> parts;  // of the current kernel, when profiling
  for (const Step& step : steps_) {
    const Node& node = *step.node;
    if (step.shares) {
      // The same bytes, now a tensor of the copy's device: nothing moves.
      SY_ASSIGN_OR_RETURN(values_[step.outputs[0]],
                          ShareWith(values_[step.inputs[0]], *step.device));
      continue;
    }
    for (ValueId id : step.outputs) {
      const Value& v = graph_.value(id);
      const int slot = buffer_plan_.value_slot[id];
      if (slot >= 0) {
        values_[id] = Tensor(*v.shape, v.dtype, slot_buffers[slot]);
      } else {
        SY_ASSIGN_OR_RETURN(values_[id],
                            Tensor::Empty(*v.shape, v.dtype, *step.device));
      }
    }
    operand_ptrs.clear();
    output_ptrs.clear();
    for (ValueId id : step.inputs) operand_ptrs.push_back(&values_[id]);
    for (ValueId id : step.outputs) output_ptrs.push_back(&values_[id]);
    if (profiler != nullptr) {
      SY_RETURN_IF_ERROR(profiler->OnNodeStart(node, *step.device));
    }
    // Outputs without elements leave nothing to compute, and kernels need
    // not handle them: a softmax over the empty dimension of a [2^40, 0]
    // tensor looped 2^40 times (tests/fuzz/graph_fuzzer), and a GPU launch
    // of an empty grid is an error.
    bool nothing_to_compute = true;
    for (const Tensor* output : output_ptrs) {
      nothing_to_compute = nothing_to_compute && output->num_elements() == 0;
    }
    parts.clear();
    step.kernel->set_part_sink(profiler != nullptr ? &parts : nullptr);
    const auto run_start = profiler != nullptr ? std::chrono::steady_clock::now()
                                               : std::chrono::steady_clock::time_point();
    absl::Status status = nothing_to_compute
                              ? absl::OkStatus()
                              : step.kernel->Run(operand_ptrs, output_ptrs);
    step.kernel->set_part_sink(nullptr);
    if (status.ok() && sync_each_node) {
      status = step.device->Synchronize();
      if (!status.ok()) {
        status = absl::Status(status.code(), absl::StrCat("(found by ", kSyncEachNodeEnv,
                                                          "'s synchronisation after it) ",
                                                          status.message()));
      }
    }
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat(DescribeNode(node), " on ",
                                       node.device->ToString(), " failed: ",
                                       status.message()));
    }
    if (profiler != nullptr) {
      SY_RETURN_IF_ERROR(profiler->OnNodeEnd(node, *step.device, step.fused));
      SY_RETURN_IF_ERROR(profiler->AddKernelParts(parts, run_start));
    }
  }
  for (BackendDevice* device : devices_used_) {
    const absl::Status synced = device->Synchronize();
    if (!synced.ok()) {
      // An asynchronous fault of some node of the run: which one, the
      // switch tells.
      return absl::Status(
          synced.code(),
          absl::StrCat(synced.message(), " (found when the run synchronised ",
                       device->device().ToString(), " at its end; rerun with ",
                       kSyncEachNodeEnv, "=1, and CUDA_LAUNCH_BLOCKING=1 on a GPU, to name the "
                       "node)"));
    }
  }
  if (profiler != nullptr) {
    abort_profile.profiler = nullptr;
    SY_RETURN_IF_ERROR(profiler->OnRunEnd());
  }
  std::vector<Tensor> outputs;
  for (ValueId id : graph_.outputs()) outputs.push_back(values_[id]);
  // Keep nothing of this run but the constants: the caller's inputs, and
  // outputs the caller drops, go back to the allocator now, so the next run
  // of the same shapes is served from its cache.
  for (const Value& v : graph_.values()) {
    if (!v.constant) values_[v.id] = Tensor();
  }
  if (memory_watch) *options.memory = memory_watch->Finish();
  return outputs;
}

}  // namespace switchyard
