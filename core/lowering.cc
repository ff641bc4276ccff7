// ExecutablePlan::Lower: from a placed graph to kernels and buffers.

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/copy_op.h"
#include "core/executable_plan.h"
#include "core/releasable_weights.h"
#include "core/shared_memory.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

// Copy nodes are core's own: any pair of devices, through CopyTensor.
class CopyKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    return CopyTensor(*inputs[0], *outputs[0]);
  }
};

absl::Status WithNode(const Node& node, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(DescribeNode(node), " on ",
                                                  node.device->ToString(), ": ",
                                                  status.message()));
}

// The node that stands for a partition in errors and the profiler:
// "features.0/conv2d+features.1/relu", op "conv2d+relu".
std::unique_ptr<Node> GroupNode(const Graph& graph, const Partition& partition) {
  auto group = std::make_unique<Node>();
  const Node& first = graph.node(partition.nodes.front());
  std::vector<std::string> names;
  for (NodeId id : partition.nodes) names.push_back(graph.node(id).name);
  group->id = first.id;
  group->name = absl::StrJoin(names, "+");
  group->op = partition.name;
  group->layer = first.layer;
  group->inputs = PartitionInputs(graph, partition);
  group->outputs = PartitionOutputs(graph, partition);
  group->device = first.device;
  return group;
}

// A constant that one node alone reads (not a copy, not a graph output)
// stops being pinned by the graph: once that node's kernel has made its own
// copy, its memory may be given back (core/releasable_weights.h).
void UnpinConstantsOfOneNode(const Graph& g) {
  std::vector<int> readers(g.values().size(), 0);
  for (const Node& node : g.nodes()) {
    std::vector<ValueId> seen;
    for (ValueId id : node.inputs) {
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      readers[id] += node.op == kCopyOp ? 2 : 1;  // a copy reads it while running
    }
  }
  for (ValueId id : g.outputs()) readers[id] += 2;
  for (const Value& v : g.values()) {
    if (v.residency != nullptr && readers[v.id] == 1) v.residency->Unpin();
  }
}

}  // namespace

absl::Status ExecutablePlan::PinConstantsReadAtRun() {
  const Graph& g = graph_;
  const auto pin = [&](ValueId id) -> absl::Status {
    const Value& v = g.value(id);
    if (!v.constant.has_value() || v.residency == nullptr) return absl::OkStatus();
    SY_ASSIGN_OR_RETURN(std::shared_ptr<const void> token,
                        ReleasableWeights::Global().Pin(*v.constant));
    if (token != nullptr) resident_constants_.push_back(std::move(token));
    return absl::OkStatus();
  };
  for (const Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      // A share aliases its input; a copy and most kernels read theirs.
      if (step.kernel == nullptr || step.kernel->ReadsInputAtRun(static_cast<int>(i))) {
        SY_RETURN_IF_ERROR(pin(step.inputs[i]));
      }
    }
  }
  for (ValueId id : g.outputs()) SY_RETURN_IF_ERROR(pin(id));
  return absl::OkStatus();
}

std::string ExecutablePlan::PartitionsToString() const {
  return switchyard::PartitionsToString(graph_, partitions_);
}

std::string ExecutablePlan::KernelsToString() const {
  std::string out;
  for (const Step& step : steps_) {
    if (step.kernel == nullptr) continue;  // a share
    const std::string what = step.kernel->Describe();
    if (what.empty()) continue;
    std::vector<std::string> names;
    if (step.fused.empty()) {
      names.push_back(step.node->name);
    } else {
      for (NodeId id : step.fused) names.push_back(graph_.node(id).name);
    }
    absl::StrAppend(&out, absl::StrJoin(names, " + "), " on ",
                    step.device->device().ToString(), ": ", what, "\n");
  }
  return out;
}

absl::Status ExecutablePlan::BindKernels() {
  const Graph& g = graph_;
  SY_ASSIGN_OR_RETURN(std::vector<Partition> claimed,
                      ClaimPartitions(g, registry_));
  std::map<NodeId, Partition> starts;  // by first node
  for (Partition& p : claimed) starts.emplace(p.nodes.front(), std::move(p));

  for (NodeId i = 0; i < static_cast<NodeId>(g.nodes().size());) {
    const Node& node = g.node(i);
    BackendDevice* device = *registry_.GetDevice(*node.device);
    Step step;
    step.device = device;
    auto partition = starts.find(i);
    if (partition != starts.end()) {
      const Partition& p = partition->second;
      step.group = GroupNode(g, p);
      step.node = step.group.get();
      step.fused = p.nodes;
      step.inputs = step.group->inputs;
      step.outputs = step.group->outputs;
      absl::StatusOr<std::unique_ptr<Kernel>> created =
          device->CreatePartitionKernel(p, g);
      if (!created.ok()) return WithNode(*step.node, created.status());
      step.kernel = std::move(*created);
      partitions_.push_back(p);
      i += static_cast<NodeId>(p.nodes.size());
    } else {
      step.node = &node;
      step.inputs = node.inputs;
      step.outputs = node.outputs;
      if (node.op == kCopyOp) {
        SY_ASSIGN_OR_RETURN(BackendDevice * from,
                            registry_.GetDevice(*g.value(node.inputs[0]).device));
        step.shares = SharesMemory(*from, *device);
        if (!step.shares) step.kernel = std::make_unique<CopyKernel>();
      } else {
        absl::StatusOr<std::unique_ptr<Kernel>> created =
            device->CreateKernel(node, g);
        if (!created.ok()) return WithNode(node, created.status());
        step.kernel = std::move(*created);
      }
      ++i;
    }
    steps_.push_back(std::move(step));
    if (std::find(devices_used_.begin(), devices_used_.end(), device) ==
        devices_used_.end()) {
      devices_used_.push_back(device);
    }
  }
  return absl::OkStatus();
}

absl::Status ExecutablePlan::LayOutSlots(std::shared_ptr<WorkspacePool> workspaces) {
  workspaces_ = workspaces != nullptr ? std::move(workspaces)
                                      : std::make_shared<WorkspacePool>();
  const std::vector<BufferPlan::Slot>& slots = buffer_plan_.slots;
  std::vector<std::vector<size_t>> sizes;   // by workspace
  std::vector<std::vector<int>> slots_in;   // by workspace
  for (int s = 0; s < static_cast<int>(slots.size()); ++s) {
    SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_.GetDevice(slots[s].device));
    size_t w = 0;
    while (w < workspace_layout_.size() && workspace_layout_[w].device != device) ++w;
    if (w == workspace_layout_.size()) {
      workspace_layout_.push_back({device, 0});
      sizes.emplace_back();
      slots_in.emplace_back();
    }
    sizes[w].push_back(slots[s].bytes);
    slots_in[w].push_back(s);
  }
  slot_places_.resize(slots.size());
  for (size_t w = 0; w < workspace_layout_.size(); ++w) {
    SY_ASSIGN_OR_RETURN(std::vector<size_t> offsets,
                        LayOutWorkspace(sizes[w], &workspace_layout_[w].bytes));
    for (size_t i = 0; i < offsets.size(); ++i) {
      slot_places_[slots_in[w][i]] = {static_cast<int>(w), offsets[i]};
    }
    // Borrowed once now, untouched, and given back for the first run: a
    // size the device cannot hold fails to compile, not to run.
    const absl::Status borrowed =
        workspaces_->Borrow(*workspace_layout_[w].device, workspace_layout_[w].bytes).status();
    if (!borrowed.ok()) {
      // Name the largest value, which is usually what the shapes made too big.
      const Value* largest = nullptr;
      size_t largest_bytes = 0;
      for (const Value& v : graph_.values()) {
        const int slot = buffer_plan_.value_slot[v.id];
        if (slot < 0 || slot_places_[slot].workspace != static_cast<int>(w)) continue;
        const size_t bytes = v.shape->num_elements() * DTypeSize(v.dtype);
        if (largest == nullptr || bytes > largest_bytes) largest = &v, largest_bytes = bytes;
      }
      return absl::Status(
          borrowed.code(),
          absl::StrCat(borrowed.message(), " (the intermediate values of this plan: ",
                       workspace_layout_[w].bytes, " bytes on ",
                       workspace_layout_[w].device->device().ToString(),
                       largest == nullptr ? ""
                                          : absl::StrCat("; the largest, '", largest->name,
                                                         "', ", largest_bytes, " bytes"),
                       ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ExecutablePlan>> ExecutablePlan::Lower(
    Graph graph, BackendRegistry& registry, std::shared_ptr<WorkspacePool> workspaces) {
  std::unique_ptr<ExecutablePlan> plan(
      new ExecutablePlan(std::move(graph), registry));
  const Graph& g = plan->graph_;
  for (const Node& node : g.nodes()) {
    if (!node.device.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat(
          DescribeNode(node), " is not placed; run placement before lowering"));
    }
  }
  // Capability first, for every node, so nothing is allocated for a graph
  // that cannot run.
  for (const Node& node : g.nodes()) {
    SY_ASSIGN_OR_RETURN(BackendDevice * device,
                        registry.GetDevice(*node.device));
    if (node.op == kCopyOp) continue;
    absl::Status supported = device->Supports(node, g);
    if (!supported.ok()) return WithNode(node, supported);
  }
  {
    absl::MutexLock lowering(&LoweringLock());
    UnpinConstantsOfOneNode(g);
    SY_RETURN_IF_ERROR(plan->BindKernels());
    SY_RETURN_IF_ERROR(plan->PinConstantsReadAtRun());
  }

  std::vector<ValueId> shared_source(g.values().size(), -1);
  for (const Step& step : plan->steps_) {
    if (step.shares) shared_source[step.outputs[0]] = step.inputs[0];
  }
  SY_ASSIGN_OR_RETURN(plan->buffer_plan_,
                      PlanBuffers(g, PlannedSteps(g, plan->partitions_),
                                  std::move(shared_source)));
  SY_RETURN_IF_ERROR(plan->LayOutSlots(std::move(workspaces)));
  absl::MutexLock lock(&plan->run_mu_);
  plan->values_.resize(g.values().size());
  for (const Value& v : g.values()) {
    if (v.constant) plan->values_[v.id] = *v.constant;
  }
  return plan;
}

}  // namespace switchyard
