// ExecutablePlan::Lower: from a placed graph to kernels and buffers.

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/executable_plan.h"
#include "core/passes/shape_inference.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

// Copy nodes are core's own: any pair of devices, through CopyTensor.
class CopyKernel : public Kernel {
 public:
  explicit CopyKernel(BackendRegistry& registry) : registry_(registry) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    return CopyTensor(*inputs[0], *outputs[0], registry_);
  }

 private:
  BackendRegistry& registry_;
};

absl::Status WithNode(const Node& node, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(DescribeNode(node), " on ",
                                                  node.device->ToString(), ": ",
                                                  status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutablePlan>> ExecutablePlan::Lower(
    Graph graph, BackendRegistry& registry) {
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
    if (node.op == "copy") continue;
    absl::Status supported = device->Supports(node, g);
    if (!supported.ok()) return WithNode(node, supported);
  }
  for (const Node& node : g.nodes()) {
    BackendDevice* device = *registry.GetDevice(*node.device);
    std::unique_ptr<Kernel> kernel;
    if (node.op == "copy") {
      kernel = std::make_unique<CopyKernel>(registry);
    } else {
      absl::StatusOr<std::unique_ptr<Kernel>> created =
          device->CreateKernel(node, g);
      if (!created.ok()) return WithNode(node, created.status());
      kernel = std::move(*created);
    }
    plan->steps_.push_back({&node, device, std::move(kernel)});
    if (std::find(plan->devices_used_.begin(), plan->devices_used_.end(),
                  device) == plan->devices_used_.end()) {
      plan->devices_used_.push_back(device);
    }
  }

  SY_ASSIGN_OR_RETURN(plan->buffer_plan_, PlanBuffers(g));
  for (const BufferPlan::Slot& slot : plan->buffer_plan_.slots) {
    SY_ASSIGN_OR_RETURN(BackendDevice * device, registry.GetDevice(slot.device));
    SY_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                        device->Allocate(slot.bytes));
    plan->slot_buffers_.push_back(std::move(buffer));
  }
  absl::MutexLock lock(&plan->run_mu_);
  plan->values_.resize(g.values().size());
  for (const Value& v : g.values()) {
    if (v.constant) plan->values_[v.id] = *v.constant;
  }
  return plan;
}

}  // namespace switchyard
