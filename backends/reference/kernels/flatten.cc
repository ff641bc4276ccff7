// Flatten: row-major data does not move; only the shape (which shape
// inference computed) differs, so the kernel copies the bytes. Pure data
// movement, so it runs in every dtype.

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

[[maybe_unused]] const bool kRegistered =
    RegisterCopyElements("flatten", AllDTypes());

}  // namespace
}  // namespace reference
}  // namespace switchyard
