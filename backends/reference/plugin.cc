// The reference backend as a dynamic plugin (core/plugin.h): the entry
// point registers device type "ref" in the registry the host passes.
//
//   switchyard --plugin=bazel-bin/backends/reference/libswitchyard_ref_plugin.so devices

#include "backends/reference/reference_backend.h"
#include "core/plugin.h"

namespace {

absl::Status RegisterReference(switchyard::BackendRegistry& registry) {
  return registry.Register(switchyard::reference::kReferenceType,
                           &switchyard::reference::CreateReferenceBackendFromEnv);
}

}  // namespace

SWITCHYARD_PLUGIN("reference", RegisterReference);
