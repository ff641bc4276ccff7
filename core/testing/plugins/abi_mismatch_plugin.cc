// A plugin built for the next plugin ABI version: the loader must refuse it
// before calling its register function.

#include <cstdlib>

#include "core/plugin.h"

namespace {

absl::Status MustNotBeCalled(switchyard::BackendRegistry&) { std::abort(); }

}  // namespace

extern "C" __attribute__((visibility("default")))
const switchyard::PluginDescriptor* SwitchyardPluginEntry() {
  static const switchyard::PluginDescriptor kDescriptor = {
      switchyard::kPluginAbiVersion + 1, switchyard::kPluginBuildId,
      "abi_mismatch", &MustNotBeCalled};
  return &kDescriptor;
}
