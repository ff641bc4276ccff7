#include "core/plugin_discovery.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

namespace fs = std::filesystem;

std::mutex& DiscoveryMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

PluginDiscovery& Last() {
  static auto* last = new PluginDiscovery();
  return *last;
}

bool DiscoveryEnabled() {
  const char* value = std::getenv(kPluginDiscoveryEnv);
  if (value == nullptr) return true;
  const std::string v = absl::AsciiStrToLower(value);
  return !(v == "off" || v == "0" || v == "no" || v == "false");
}

bool IsPluginFileName(const std::string& name) {
  return absl::StartsWith(name, "libswitchyard_") && absl::EndsWith(name, "_plugin.so");
}

// The plugin files of `folder`, sorted; none when it cannot be listed.
std::vector<std::string> PluginFilesIn(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code not_regular;
    if (IsPluginFileName(it->path().filename().string()) && it->is_regular_file(not_regular)) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<std::string> PluginFoldersBeside(const std::string& binary) {
  if (binary.empty()) return {};
  const fs::path folder = fs::path(binary).parent_path();
  return {folder.lexically_normal().string(),
          (folder / ".." / "lib" / "switchyard").lexically_normal().string()};
}

std::string RunningExecutable() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string() : exe.string();
}

std::string LoadedFileOf(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code error;
  const fs::path resolved = fs::canonical(info.dli_fname, error);
  return error ? std::string(info.dli_fname) : resolved.string();
}

PluginDiscovery DiscoverPlugins(const std::vector<std::string>& folders,
                                BackendRegistry& registry) {
  PluginDiscovery found;
  found.enabled = DiscoveryEnabled();
  found.folders = folders;
  if (found.enabled) {
    std::vector<std::string> seen;  // one file reached from two folders loads once
    for (const std::string& folder : folders) {
      for (const std::string& file : PluginFilesIn(folder)) {
        std::error_code error;
        const std::string canonical = fs::canonical(file, error).string();
        if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
        seen.push_back(canonical);
        absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(file, registry);
        if (loaded.ok()) {
          found.loaded.push_back(*std::move(loaded));
        } else if (loaded.status().code() != absl::StatusCode::kAlreadyExists) {
          found.skipped.push_back(absl::StrCat(file, ": ", loaded.status().message()));
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(DiscoveryMutex());
  Last() = found;
  return found;
}

PluginDiscovery LastPluginDiscovery() {
  std::lock_guard<std::mutex> lock(DiscoveryMutex());
  return Last();
}

}  // namespace switchyard
