// A plugin of the right ABI version built with another toolchain: the loader
// must refuse it before calling its register function.

#include <cstdlib>

#include "core/plugin.h"

namespace {

absl::Status MustNotBeCalled(switchyard::BackendRegistry&) { std::abort(); }

}  // namespace

extern "C" __attribute__((visibility("default")))
const switchyard::PluginDescriptor* SwitchyardPluginEntry() {
  static const switchyard::PluginDescriptor kDescriptor = {
      switchyard::kPluginAbiVersion, "compiler other 1.0; c++ 201703L",
      "build_mismatch", &MustNotBeCalled};
  return &kDescriptor;
}
