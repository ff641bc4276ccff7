#ifndef SWITCHYARD_CORE_PASSES_AUTO_PLACEMENT_H_
#define SWITCHYARD_CORE_PASSES_AUTO_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backend_registry.h"
#include "core/device.h"
#include "core/pass.h"
#include "core/placement_report.h"

namespace switchyard {

// The opt-in policy: places every node on `target` and makes the graph obey
// strict placement by inserting explicit copy nodes for operands that live
// elsewhere. A parameter on another device is moved once, at compile time
// (a new constant on the target), rather than copied every run. A node the
// target cannot run (BackendDevice::Supports says why) falls back to
// `fallback` (the CPU) when that device can run it, with copies around it.
//
//   before: features.0/conv2d(input on cpu:0, features.0.weight on ref:0)
//   after:  copy:input->ref:0(input) on ref:0
//           features.0/conv2d(copy:input->ref:0:0, features.0.weight) on ref:0
//
// Runs after shape inference; strict placement runs after it as a check.
class AutoPlacementPass : public Pass {
 public:
  AutoPlacementPass(BackendRegistry& registry, Device target,
                    std::optional<Device> fallback, PlacementReport* report)
      : registry_(registry),
        target_(std::move(target)),
        fallback_(std::move(fallback)),
        report_(report) {}
  std::string name() const override { return "auto-placement"; }
  absl::StatusOr<bool> Run(Graph& graph) override;

 private:
  BackendRegistry& registry_;
  Device target_;
  std::optional<Device> fallback_;
  PlacementReport* report_;  // may be null
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASSES_AUTO_PLACEMENT_H_
