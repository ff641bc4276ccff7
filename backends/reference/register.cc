// Registers the reference backend as device type "ref" in
// BackendRegistry::Global() when //backends/reference is linked in. The
// library is alwayslink: nothing references this file by name.

#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"

namespace switchyard {
namespace reference {
namespace {

[[maybe_unused]] const bool kRegistered =
    RegisterBackend(kReferenceType, &CreateReferenceBackendFromEnv);

}  // namespace
}  // namespace reference
}  // namespace switchyard
