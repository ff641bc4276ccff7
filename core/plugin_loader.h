#ifndef SWITCHYARD_CORE_PLUGIN_LOADER_H_
#define SWITCHYARD_CORE_PLUGIN_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"

namespace switchyard {

// Loads backend plugins (core/plugin.h) into a registry at run time, from
// paths the user named and nowhere else: no search of the working directory,
// of LD_LIBRARY_PATH or of a default folder.
//
//   absl::StatusOr<LoadedPlugin> p = LoadPlugin(
//       "bazel-bin/backends/reference/libswitchyard_ref_plugin.so",
//       BackendRegistry::Global());
//   p->types == {"ref"}
//
// Errors name the path and the cause, with the most specific code:
//   NotFound          the path does not exist
//   InvalidArgument   not a loadable shared object (dlopen failed), or a
//                     shared object without the SwitchyardPluginEntry symbol
//   FailedPrecondition  a dependency or symbol of the plugin is missing, or
//                     the plugin was built for another plugin ABI version or
//                     toolchain (rebuild it from the same sources as the host)
//   AlreadyExists     a device type the plugin registers is taken
//   (the plugin's own code)  register_backends failed
struct LoadedPlugin {
  std::string path;                // absolute, symlinks resolved
  std::string name;                // the descriptor's name
  std::vector<std::string> types;  // device types it registered, sorted
};

// Loads one plugin file. A plugin stays loaded for the life of the process
// once its register_backends has been called; files rejected before that are
// closed again.
absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path,
                                        BackendRegistry& registry);

// The environment variable LoadPluginsFromEnv reads.
inline constexpr char kPluginPathEnv[] = "SWITCHYARD_PLUGIN_PATH";

// Loads every plugin in a colon-separated list, in order. Each entry is a
// plugin file, or a directory: every regular file in it whose name ends in
// ".so" is loaded in name order (not recursively), and shared objects in it
// that do not export the entry point are skipped (a plugin's own helper
// libraries may sit beside it); every other error stops the load. Empty
// entries are ignored. Stops at the first error, which names the entry.
absl::StatusOr<std::vector<LoadedPlugin>> LoadPluginsFromPathList(
    absl::string_view path_list, BackendRegistry& registry);

// LoadPluginsFromPathList($SWITCHYARD_PLUGIN_PATH); nothing when it is unset
// or empty.
absl::StatusOr<std::vector<LoadedPlugin>> LoadPluginsFromEnv(
    BackendRegistry& registry);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PLUGIN_LOADER_H_
