// The oneDNN backend as a dynamic plugin (core/plugin.h): the entry point
// registers device type "dnnl" in the registry the host passes. The host
// needs neither oneDNN's headers nor its library; the plugin links
// libdnnl.so.2 (and its OpenMP runtime) itself.
//
//   switchyard --plugin=bazel-bin/backends/dnnl/libswitchyard_dnnl_plugin.so devices

#include "backends/dnnl/dnnl_backend.h"
#include "core/plugin.h"

namespace {

absl::Status RegisterDnnl(switchyard::BackendRegistry& registry) {
  return registry.Register(switchyard::onednn::kDnnlType,
                           &switchyard::onednn::CreateDnnlBackend);
}

}  // namespace

SWITCHYARD_PLUGIN("dnnl", RegisterDnnl);
