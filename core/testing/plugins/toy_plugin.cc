// A working plugin: device type "toy" with one host-memory device that runs
// relu and add (core/testing/host_backend.h).

#include "core/plugin.h"
#include "core/testing/host_backend.h"

namespace {

absl::Status RegisterToy(switchyard::BackendRegistry& registry) {
  return registry.Register(
      "toy", []() -> absl::StatusOr<std::unique_ptr<switchyard::Backend>> {
        return switchyard::testing::MakeHostBackend("toy", 1);
      });
}

}  // namespace

SWITCHYARD_PLUGIN("toy", RegisterToy);
