// Reshape: row-major data does not move; only the shape (which shape
// inference computed) differs, so the kernel copies the bytes. Every dtype.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

[[maybe_unused]] const bool kRegistered =
    RegisterCopyElements("reshape", AllDTypes());

}  // namespace
}  // namespace reference
}  // namespace switchyard
