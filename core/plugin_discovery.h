#ifndef SWITCHYARD_CORE_PLUGIN_DISCOVERY_H_
#define SWITCHYARD_CORE_PLUGIN_DISCOVERY_H_

// The plugins a build ships beside its binary, loaded without flags (as
// ggml-backend loads the backends next to its executable): every
// libswitchyard_<name>_plugin.so in the folder of the running binary (or
// of the Python extension module) and in <that folder>/../lib/switchyard
// (an installed layout). The build copies the oneDNN plugin beside
// `switchyard` and the Python module, so dnnl:0 is there by default.
//
// Discovery never fails a command: a file that does not load (a missing
// libdnnl, a plugin from another build) is skipped and reported by
// `switchyard devices`; one whose types are already registered (the same
// plugin named by --plugin or SWITCHYARD_PLUGIN_PATH, which load first)
// is skipped quietly. SWITCHYARD_PLUGIN_DISCOVERY=off turns it off.
//
//   PluginDiscovery found = DiscoverPlugins(
//       PluginFoldersBeside(RunningExecutable()), BackendRegistry::Global());

#include <string>
#include <vector>

#include "core/backend_registry.h"
#include "core/plugin_loader.h"

namespace switchyard {

inline constexpr char kPluginDiscoveryEnv[] = "SWITCHYARD_PLUGIN_DISCOVERY";

struct PluginDiscovery {
  bool enabled = true;               // false: SWITCHYARD_PLUGIN_DISCOVERY=off
  std::vector<std::string> folders;  // searched, in order
  std::vector<LoadedPlugin> loaded;
  // "path: why" for each plugin file found that was not loaded.
  std::vector<std::string> skipped;
};

// `binary`'s folder and <folder>/../lib/switchyard (normalized).
std::vector<std::string> PluginFoldersBeside(const std::string& binary);

// The running executable (/proc/self/exe, symlinks resolved); empty when
// the system does not say.
std::string RunningExecutable();

// The file the code at `address` was loaded from (a shared object's own
// path, via dladdr); empty when unknown.
std::string LoadedFileOf(const void* address);

// Loads every libswitchyard_*_plugin.so of `folders` into `registry`, in
// name order per folder; records the result for LastPluginDiscovery().
PluginDiscovery DiscoverPlugins(const std::vector<std::string>& folders,
                                BackendRegistry& registry);

// What the last DiscoverPlugins of this process found (nothing before one).
PluginDiscovery LastPluginDiscovery();

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PLUGIN_DISCOVERY_H_
