// switchyard.load_plugin(path) and the plugins of SWITCHYARD_PLUGIN_PATH:
// backend plugins (core/plugin.h) loaded into the registry the module's
// sessions use, as `switchyard --plugin=` and the environment variable do
// for the command line. A plugin carries its own copy of core and exports
// only its entry point, so it loads the same into this extension module as
// into the `switchyard` binary.

#include <string>
#include <vector>

#include "core/backend_registry.h"
#include "core/plugin_discovery.h"
#include "core/plugin_loader.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/registration.h"
#include "python/status.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

py::dict PluginDict(const LoadedPlugin& p) {
  py::dict d;
  d["path"] = p.path;
  d["name"] = p.name;
  d["types"] = p.types;
  return d;
}

py::dict DiscoveryDict(const PluginDiscovery& found) {
  py::dict d;
  d["enabled"] = found.enabled;
  d["folders"] = found.folders;
  py::list loaded;
  for (const LoadedPlugin& p : found.loaded) loaded.append(PluginDict(p));
  d["loaded"] = loaded;
  d["skipped"] = found.skipped;
  return d;
}

}  // namespace

void RegisterPlugins(py::module_& m) {
  m.def(
      "load_plugin",
      [](const std::string& path) {
        absl::StatusOr<LoadedPlugin> loaded;
        {
          py::gil_scoped_release nogil;
          loaded = LoadPlugin(path, BackendRegistry::Global());
        }
        return PluginDict(ValueOrThrow(std::move(loaded)));
      },
      py::arg("path"),
      "Loads a backend plugin (.so built with core/plugin.bzl) and returns "
      "{path, name, types}: its device types are then usable by Session, "
      "devices() and the rest. Raises NotFoundError, InvalidArgumentError or "
      "FailedPreconditionError (built from other sources), AlreadyExistsError "
      "(a type already registered).");
  m.def(
      "_discover_plugins",
      [] {
        PluginDiscovery found;
        {
          py::gil_scoped_release nogil;
          // Beside this extension module (bazel-bin/python/switchyard/).
          found = DiscoverPlugins(
              PluginFoldersBeside(LoadedFileOf(reinterpret_cast<const void*>(&PluginDict))),
              BackendRegistry::Global());
        }
        return DiscoveryDict(found);
      },
      "Loads the plugins beside the module (called once at import, after "
      "SWITCHYARD_PLUGIN_PATH's); never raises.");
  m.def(
      "discovered_plugins", [] { return DiscoveryDict(LastPluginDiscovery()); },
      "What plugin discovery found at import: {enabled, folders, loaded: "
      "[{path, name, types}], skipped: [\"path: why\"]}. "
      "SWITCHYARD_PLUGIN_DISCOVERY=off turns discovery off.");
  m.def(
      "_load_plugins_from_env",
      [] {
        absl::StatusOr<std::vector<LoadedPlugin>> loaded;
        {
          py::gil_scoped_release nogil;
          loaded = LoadPluginsFromEnv(BackendRegistry::Global());
        }
        py::list out;
        for (const LoadedPlugin& p : ValueOrThrow(std::move(loaded))) out.append(PluginDict(p));
        return out;
      },
      "Loads the plugins SWITCHYARD_PLUGIN_PATH lists (called once at import).");
}

}  // namespace python
}  // namespace switchyard
