#include "core/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/plugin.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

namespace fs = std::filesystem;

constexpr char kWhatAPluginIs[] =
    "a plugin is a shared object built with switchyard_plugin() "
    "(core/plugin.bzl) whose source uses SWITCHYARD_PLUGIN(...) "
    "(core/plugin.h); see docs/adding_a_backend.md";

std::string DlError() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown error";
}

// The absolute path with symlinks resolved, so that dlopen never searches
// (it does for a name without a slash) and one file has one name.
absl::StatusOr<std::string> ResolvePath(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "empty plugin path; name a plugin's .so file");
  }
  std::error_code error;
  const fs::path resolved = fs::canonical(path, error);
  if (error == std::errc::no_such_file_or_directory ||
      error == std::errc::not_a_directory) {
    return absl::NotFoundError(absl::StrCat(
        "plugin '", path,
        "' does not exist; check the path given with --plugin or in ",
        kPluginPathEnv, " (a relative path is taken from the working directory)"));
  }
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot resolve plugin path '", path, "': ", error.message()));
  }
  return resolved.string();
}

// How long an idle OpenMP thread spins before it sleeps, for plugins that
// bring libgomp (oneDNN's build in Debian): libgomp reads GOMP_SPINCOUNT
// once, when it is loaded, so it is set before the first plugin is. Its
// default (300,000 spins, ~1 ms) is as fast when the machine is idle, but
// when other work holds the cores a spinning thread keeps the one it waits
// for off them: ResNet-50 at batch 1 beside two busy loops on 2 cores took
// 84.6 ms at the default, 87.9 with OMP_WAIT_POLICY=passive and 51.5 with
// 1000 spins, while the idle figures stayed those of the default
// (transformer 2.25 / 2.28 ms, passive 4.03; docs/benchmarks.md). A user's
// OMP_WAIT_POLICY or GOMP_SPINCOUNT is left as it is.
void BoundOpenMpSpinning() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) {
    return;
  }
  setenv("GOMP_SPINCOUNT", "1000", /*overwrite=*/0);
}

// Loads `path` and appends it to `loaded`; appends nothing when it is a
// shared object without the entry point and `skip_non_plugins` is set (a
// library that sits in a plugin folder). (An out-parameter, not a
// StatusOr<std::optional<LoadedPlugin>>: GCC's -Wmaybe-uninitialized misreads
// an optional moved out of a StatusOr at -O2, dozens of lines per build.)
absl::Status Load(const std::string& path, BackendRegistry& registry,
                  bool skip_non_plugins, std::vector<LoadedPlugin>& loaded) {
  SY_ASSIGN_OR_RETURN(const std::string resolved, ResolvePath(path));
  if (fs::is_directory(resolved)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin '", path, "' is a directory; name a plugin's .so file (",
        kPluginPathEnv, " also accepts directories)"));
  }
  // Messages use the path as the user gave it.
  const std::string where = absl::StrCat("plugin '", path, "'");

  BoundOpenMpSpinning();
  // RTLD_NOW: a missing symbol is an error here, not a crash later.
  // RTLD_LOCAL: one plugin's symbols never serve another.
  void* handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const std::string error = DlError();
    if (absl::StrContains(error, "undefined symbol") ||
        absl::StrContains(error, "cannot open shared object file") ||
        absl::StrContains(error, "version `")) {
      return absl::FailedPreconditionError(absl::StrCat(
          where, " could not be loaded because a symbol or library it needs "
          "is missing (dlopen: ", error, "). Rebuild the plugin from the same "
          "Switchyard sources as this binary, and check its dependencies with "
          "`ldd ", path, "`"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is not a loadable shared object (dlopen: ", error, "); ",
        kWhatAPluginIs));
  }

  dlerror();  // clear
  void* symbol = dlsym(handle, kPluginEntryPoint);
  if (symbol == nullptr) {
    dlclose(handle);
    if (skip_non_plugins) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is a shared object but not a Switchyard plugin: the symbol '",
        kPluginEntryPoint, "' is missing; ", kWhatAPluginIs));
  }
  // A C function returning a pointer to a static object: safe to call before
  // the versions are known to match.
  const PluginDescriptor* descriptor =
      reinterpret_cast<PluginEntryFn>(symbol)();
  if (descriptor == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", kPluginEntryPoint, "() returned null"));
  }
  if (descriptor->abi_version != kPluginAbiVersion) {
    const uint32_t version = descriptor->abi_version;
    dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        where, " was built for plugin ABI version ", version,
        " but this Switchyard uses version ", kPluginAbiVersion,
        "; rebuild the plugin from the same Switchyard sources as this "
        "binary"));
  }
  if (descriptor->build_id == nullptr ||
      std::strcmp(descriptor->build_id, kPluginBuildId) != 0) {
    const std::string build =
        descriptor->build_id != nullptr ? descriptor->build_id : "(null)";
    dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        where, " was built with another toolchain (plugin: '", build,
        "', this binary: '", kPluginBuildId,
        "'); rebuild the plugin with the same compiler, C++ standard and "
        "Abseil as this binary"));
  }
  const std::string name = descriptor->name != nullptr ? descriptor->name : "";
  if (descriptor->register_backends == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        where, " (", name, ") has no register function in its descriptor"));
  }

  // From here on the plugin stays loaded, even on error: it may have
  // registered factories whose code lives in it.
  const std::vector<std::string> before = registry.Types();
  const absl::Status registered = descriptor->register_backends(registry);
  if (!registered.ok()) {
    std::string hint;
    if (registered.code() == absl::StatusCode::kAlreadyExists) {
      hint =
          ". Is this backend also linked into the binary, or was the plugin "
          "named twice (--plugin and " + std::string(kPluginPathEnv) + ")?";
    }
    return absl::Status(
        registered.code(),
        absl::StrCat(where, " (", name, ") failed to register its backends: ",
                     registered.message(), hint));
  }
  LoadedPlugin plugin{resolved, name, {}};
  for (const std::string& type : registry.Types()) {
    if (!std::binary_search(before.begin(), before.end(), type)) {
      plugin.types.push_back(type);
    }
  }
  loaded.push_back(std::move(plugin));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path,
                                        BackendRegistry& registry) {
  std::vector<LoadedPlugin> loaded;
  SY_RETURN_IF_ERROR(Load(path, registry, /*skip_non_plugins=*/false, loaded));
  return std::move(loaded.front());
}

absl::StatusOr<std::vector<LoadedPlugin>> LoadPluginsFromPathList(
    absl::string_view path_list, BackendRegistry& registry) {
  std::vector<LoadedPlugin> loaded;
  for (absl::string_view entry :
       absl::StrSplit(path_list, ':', absl::SkipEmpty())) {
    const std::string path(entry);
    std::error_code error;
    if (!fs::is_directory(path, error)) {
      SY_RETURN_IF_ERROR(
          Load(path, registry, /*skip_non_plugins=*/false, loaded));
      continue;
    }
    std::vector<std::string> files;
    // The error_code overloads throughout: no exceptions from a bad folder.
    for (fs::directory_iterator it(path, error), end; !error && it != end;
         it.increment(error)) {
      std::error_code not_regular;
      if (it->path().extension() == ".so" && it->is_regular_file(not_regular)) {
        files.push_back(it->path().string());
      }
    }
    if (error) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot list plugin directory '", path, "': ", error.message()));
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      SY_RETURN_IF_ERROR(
          Load(file, registry, /*skip_non_plugins=*/true, loaded));
    }
  }
  return loaded;
}

absl::StatusOr<std::vector<LoadedPlugin>> LoadPluginsFromEnv(
    BackendRegistry& registry) {
  const char* value = std::getenv(kPluginPathEnv);
  if (value == nullptr || *value == '\0') return std::vector<LoadedPlugin>();
  absl::StatusOr<std::vector<LoadedPlugin>> loaded =
      LoadPluginsFromPathList(value, registry);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat(kPluginPathEnv, ": ",
                                     loaded.status().message()));
  }
  return loaded;
}

}  // namespace switchyard
