// Plugin discovery over a folder laid out as a build or an install would
// be: plugins found by name and loaded, the ones that do not load skipped
// with the reason, other shared objects left alone, a plugin already loaded
// skipped quietly, and the switch that turns discovery off.

#include "core/plugin_discovery.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/backend_registry.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test's temporary directory.
std::string FreshFolder(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path folder = fs::path(tmp != nullptr ? tmp : "/tmp") / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder.string();
}

// A build's folder: the toy plugin and a failing one under plugin names,
// a junk file under a plugin name, and the toy plugin under a name
// discovery does not look for.
std::string MakeBuildFolder(const std::string& name) {
  const std::string folder = FreshFolder(name);
  fs::copy_file("core/testing/plugins/libtoy_plugin.so",
                folder + "/libswitchyard_toy_plugin.so");
  fs::copy_file("core/testing/plugins/libinit_fails_plugin.so",
                folder + "/libswitchyard_init_fails_plugin.so");
  fs::copy_file("core/testing/plugins/libtoy_plugin.so", folder + "/libhelper.so");
  std::ofstream(folder + "/libswitchyard_junk_plugin.so") << "not an ELF file";
  return folder;
}

TEST(PluginDiscoveryTest, FoldersBesideABinary) {
  EXPECT_EQ(PluginFoldersBeside("/opt/sy/bin/switchyard"),
            (std::vector<std::string>{"/opt/sy/bin", "/opt/sy/lib/switchyard"}));
  EXPECT_TRUE(PluginFoldersBeside("").empty());
  EXPECT_FALSE(RunningExecutable().empty());
  EXPECT_TRUE(absl::EndsWith(RunningExecutable(), "plugin_discovery_test"))
      << RunningExecutable();
}

TEST(PluginDiscoveryTest, LoadsPluginsByNameAndSkipsTheRestWithTheReason) {
  ASSERT_EQ(unsetenv(kPluginDiscoveryEnv), 0);
  const std::string folder = MakeBuildFolder("build");
  BackendRegistry registry;
  const PluginDiscovery found =
      DiscoverPlugins({folder, folder + "/../lib/switchyard"}, registry);
  EXPECT_TRUE(found.enabled);
  ASSERT_EQ(found.loaded.size(), 1u) << absl::StrJoin(found.skipped, "\n");
  EXPECT_EQ(found.loaded[0].types, std::vector<std::string>{"toy"});
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"toy"});
  // The failing plugin and the junk file, each with why; libhelper.so is
  // not a plugin's name and is not tried.
  const std::string skipped = absl::StrJoin(found.skipped, "\n");
  EXPECT_EQ(found.skipped.size(), 2u) << skipped;
  EXPECT_TRUE(absl::StrContains(skipped, "libswitchyard_init_fails_plugin.so: ")) << skipped;
  EXPECT_TRUE(absl::StrContains(skipped, "the toy accelerator is switched off")) << skipped;
  EXPECT_TRUE(absl::StrContains(skipped, "libswitchyard_junk_plugin.so: ")) << skipped;
  EXPECT_FALSE(absl::StrContains(skipped, "libhelper")) << skipped;
  EXPECT_EQ(LastPluginDiscovery().loaded.size(), 1u);

  // Again into the same registry: toy is there already, so it is skipped
  // without a word (as when --plugin named it first).
  const PluginDiscovery again = DiscoverPlugins({folder}, registry);
  EXPECT_TRUE(again.loaded.empty());
  EXPECT_FALSE(absl::StrContains(absl::StrJoin(again.skipped, "\n"), "toy_plugin")) <<
      absl::StrJoin(again.skipped, "\n");
}

TEST(PluginDiscoveryTest, AnInstalledLayoutAndAMissingFolder) {
  ASSERT_EQ(unsetenv(kPluginDiscoveryEnv), 0);
  const std::string prefix = FreshFolder("prefix");
  fs::create_directories(prefix + "/bin");
  fs::create_directories(prefix + "/lib/switchyard");
  fs::copy_file("core/testing/plugins/libtoy_plugin.so",
                prefix + "/lib/switchyard/libswitchyard_toy_plugin.so");
  BackendRegistry registry;
  const PluginDiscovery found = DiscoverPlugins(
      PluginFoldersBeside(prefix + "/bin/switchyard"), registry);
  ASSERT_EQ(found.loaded.size(), 1u) << absl::StrJoin(found.skipped, "\n");
  EXPECT_TRUE(found.skipped.empty());
  EXPECT_TRUE(DiscoverPlugins({prefix + "/no_such_folder"}, registry).loaded.empty());
}

TEST(PluginDiscoveryTest, TurnedOffByTheEnvironment) {
  const std::string folder = MakeBuildFolder("off");
  ASSERT_EQ(setenv(kPluginDiscoveryEnv, "off", 1), 0);
  BackendRegistry registry;
  const PluginDiscovery found = DiscoverPlugins({folder}, registry);
  ASSERT_EQ(unsetenv(kPluginDiscoveryEnv), 0);
  EXPECT_FALSE(found.enabled);
  EXPECT_TRUE(found.loaded.empty());
  EXPECT_TRUE(registry.Types().empty());
}

}  // namespace
}  // namespace switchyard
