#ifndef SWITCHYARD_CORE_PLUGIN_H_
#define SWITCHYARD_CORE_PLUGIN_H_

// Dynamic backend plugins: what a plugin shared object exports.
//
// A plugin is a .so that exports one C function, SwitchyardPluginEntry(),
// returning a PluginDescriptor. The loader (core/plugin_loader.h) finds the
// function with dlsym, checks the descriptor's ABI version and build id, and
// only then calls register_backends with the host's registry.
//
//   // my_plugin.cc, built with switchyard_plugin() from core/plugin.bzl
//   absl::Status RegisterMyBackend(switchyard::BackendRegistry& registry) {
//     return registry.Register("mine", &CreateMyBackend);
//   }
//   SWITCHYARD_PLUGIN("mine", RegisterMyBackend);
//
// The rules of the boundary:
// - Same sources. C++ objects cross it (BackendRegistry, Graph, Node, Tensor,
//   Buffer, absl::Status, std::string), so host and plugin must be built
//   from the same Switchyard sources with the same compiler, C++ standard and
//   Abseil. kPluginAbiVersion is bumped whenever core/backend.h,
//   core/backend_registry.h, core/graph.h, core/tensor.h, core/buffer.h,
//   core/caching_allocator.h, the headers they include, or this file
//   change (a test holds the headers' fingerprint and fails otherwise); the
//   build id catches a different toolchain. Both are
//   checked before any C++ function of the plugin is called.
// - Register into the registry you are given, never into
//   BackendRegistry::Global(): the plugin links its own copy of core, and its
//   Global() is a different object from the host's.
// - Export only the entry point. switchyard_plugin() links with
//   core/plugin.lds, which makes every other symbol local, so the plugin's
//   copy of core binds to itself and never interposes on the host's (and the
//   host's never on the plugin's).
// - Plugins are never unloaded once register_backends has run: the backends,
//   buffers and kernels they made hold pointers into their code.

#include <cstdint>

#include "absl/base/config.h"
#include "absl/status/status.h"
#include "core/backend_registry.h"

namespace switchyard {

// Bump on any change to the types that cross the plugin boundary (above);
// //core:plugin_abi_fingerprint_test fails until it is bumped and
// tools/plugin_abi_fingerprint.py --update has recorded the new headers.
// 3: Kernel::Describe. 4: BackendDevice::caching_allocator() and
// host_memory(), Kernel::set_part_sink and its data member. 5: the
// quantized storage dtypes (int16, uint16, int4, uint4, the four float8s).
// 6: DeviceEvent, BackendDevice's asynchronous copies, events and host
// staging memory.
inline constexpr uint32_t kPluginAbiVersion = 7;

// The name of the C entry point, for dlsym.
inline constexpr char kPluginEntryPoint[] = "SwitchyardPluginEntry";

#define SWITCHYARD_PLUGIN_STRINGIFY_INNER(x) #x
#define SWITCHYARD_PLUGIN_STRINGIFY(x) SWITCHYARD_PLUGIN_STRINGIFY_INNER(x)

// The toolchain this translation unit is compiled with; host and plugin must
// agree. Compared as a string, so any difference is a mismatch.
#define SWITCHYARD_PLUGIN_BUILD_ID                           \
  "compiler " __VERSION__                                    \
  "; c++ " SWITCHYARD_PLUGIN_STRINGIFY(__cplusplus)          \
  "; abseil " SWITCHYARD_PLUGIN_STRINGIFY(ABSL_LTS_RELEASE_VERSION)

inline constexpr char kPluginBuildId[] = SWITCHYARD_PLUGIN_BUILD_ID;

// Registers the plugin's backends into `registry` (the host's). Register
// everything or nothing: on error the loader reports it, and a partial
// registration would stay behind.
using PluginRegisterFn = absl::Status (*)(BackendRegistry& registry);

// What SwitchyardPluginEntry() returns, a static object in the plugin. The
// first two fields are plain C and never move, so a loader of any version can
// read them before trusting the rest.
struct PluginDescriptor {
  uint32_t abi_version;  // kPluginAbiVersion when the plugin was built
  const char* build_id;  // kPluginBuildId when the plugin was built
  const char* name;      // for messages: "reference"
  PluginRegisterFn register_backends;
};

// The entry point's type: `extern "C" const PluginDescriptor* F(void)`.
using PluginEntryFn = const PluginDescriptor* (*)();

}  // namespace switchyard

// Defines the entry point of a plugin; use it once, in the plugin's own .cc
// (never in a library that a binary might link statically). `name` is a
// string literal, `register_fn` a PluginRegisterFn.
#define SWITCHYARD_PLUGIN(name, register_fn)                             \
  extern "C" __attribute__((visibility("default"), used))                \
  const ::switchyard::PluginDescriptor* SwitchyardPluginEntry() {        \
    static const ::switchyard::PluginDescriptor kDescriptor = {          \
        ::switchyard::kPluginAbiVersion, ::switchyard::kPluginBuildId,   \
        name, register_fn};                                              \
    return &kDescriptor;                                                 \
  }                                                                      \
  static_assert(true, "require a semicolon after SWITCHYARD_PLUGIN(...)")

#endif  // SWITCHYARD_CORE_PLUGIN_H_
