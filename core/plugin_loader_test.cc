// Loading plugins: a working one (core/testing/plugins/toy_plugin.cc) into a
// fresh registry, then every way a load can fail, each with its code and
// message. The reference backend's plugin runs the conformance cases in
// tests/plugin_conformance_test.cc.

#include "core/plugin_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/plugin.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Test plugins, relative to the runfiles root (the test's working directory).
std::string Plugin(const std::string& file) {
  return "core/testing/plugins/" + file;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(PluginLoaderTest, LoadsAPluginIntoTheRegistryItIsGiven) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libtoy_plugin.so"), registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->name, "toy");
  EXPECT_EQ(loaded->types, std::vector<std::string>{"toy"});
  EXPECT_TRUE(fs::path(loaded->path).is_absolute());
  EXPECT_THAT(loaded->path, HasSubstr("libtoy_plugin.so"));
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"toy"});
  // Not into the host's Global(), nor into the plugin's own copy of it.
  EXPECT_FALSE(Contains(BackendRegistry::Global().Types(), "toy"));
}

TEST(PluginLoaderTest, ThePluginsDeviceWorksThroughHostObjects) {
  BackendRegistry registry;
  ASSERT_TRUE(LoadPlugin(Plugin("libtoy_plugin.so"), registry).ok());
  const Device toy = *Device::Parse("toy:0");
  // Allocation, copies and a kernel, all plugin code, on host-made objects.
  absl::StatusOr<Tensor> x = Tensor::FromVector({3}, {-1, 0, 2}, toy, registry);
  ASSERT_TRUE(x.ok()) << x.status();
  Graph graph;
  graph.AddNode("relu", "act", {graph.AddInput("x", Shape({3}), toy)},
                AttrMap());
  BackendDevice* device = *registry.GetDevice(toy);
  ASSERT_TRUE(device->Supports(graph.nodes()[0], graph).ok());
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      device->CreateKernel(graph.nodes()[0], graph);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Tensor y = *Tensor::Empty({3}, DType::kFloat32, toy, registry);
  const Tensor* inputs[] = {&*x};
  Tensor* outputs[] = {&y};
  ASSERT_TRUE((*kernel)->Run(inputs, outputs).ok());
  EXPECT_EQ(*y.ToVector(), (std::vector<float>{0, 0, 2}));
}

TEST(PluginLoaderTest, BoundsOpenMpSpinningUnlessTheUserChose) {
  // libgomp reads GOMP_SPINCOUNT when a plugin brings it in: the loader
  // sets a short spin before loading, and leaves a user's choice alone.
  unsetenv("GOMP_SPINCOUNT");
  setenv("OMP_WAIT_POLICY", "passive", 1);
  BackendRegistry first;
  ASSERT_TRUE(LoadPlugin(Plugin("libtoy_plugin.so"), first).ok());
  EXPECT_EQ(std::getenv("GOMP_SPINCOUNT"), nullptr);
  unsetenv("OMP_WAIT_POLICY");
  BackendRegistry second;
  ASSERT_TRUE(LoadPlugin(Plugin("libtoy_plugin.so"), second).ok());
  ASSERT_NE(std::getenv("GOMP_SPINCOUNT"), nullptr);
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), "1000");
  setenv("GOMP_SPINCOUNT", "5", 1);
  BackendRegistry third;
  ASSERT_TRUE(LoadPlugin(Plugin("libtoy_plugin.so"), third).ok());
  EXPECT_STREQ(std::getenv("GOMP_SPINCOUNT"), "5");
}

TEST(PluginLoaderTest, MissingFileIsNotFound) {
  BackendRegistry registry;
  const std::string path = TempDir() + "/no_such_plugin.so";
  absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(path, registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("plugin '" + path + "' does not exist"));
  EXPECT_THAT(Message(loaded.status()), HasSubstr("--plugin"));
}

TEST(PluginLoaderTest, FileThatIsNotASharedObjectIsInvalid) {
  const std::string path = TempDir() + "/text_file.so";
  std::ofstream(path) << "this is not an ELF file\n";
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(path, registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded.status()), HasSubstr(path));
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("is not a loadable shared object (dlopen: "));
  EXPECT_THAT(Message(loaded.status()), HasSubstr("switchyard_plugin()"));
}

TEST(PluginLoaderTest, DirectoryIsNotAPluginFile) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(TempDir(), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("is a directory"));
}

TEST(PluginLoaderTest, SharedObjectWithoutEntryPointIsNotAPlugin) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libno_entry_point.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("libno_entry_point.so"));
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("is a shared object but not a Switchyard plugin: the "
                        "symbol 'SwitchyardPluginEntry' is missing"));
}

TEST(PluginLoaderTest, UnresolvedSymbolIsAFailedPrecondition) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libundefined_symbol.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("libundefined_symbol.so"));
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("undefined symbol: SwitchyardTestSymbolDefinedNowhere"));
  EXPECT_THAT(Message(loaded.status()), HasSubstr("ldd "));
}

TEST(PluginLoaderTest, AbiVersionMismatchIsRefusedBeforeRegistering) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libabi_mismatch_plugin.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("libabi_mismatch_plugin.so"));
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("was built for plugin ABI version " +
                        std::to_string(kPluginAbiVersion + 1) +
                        " but this Switchyard uses version " +
                        std::to_string(kPluginAbiVersion)));
  EXPECT_THAT(Message(loaded.status()), HasSubstr("rebuild the plugin"));
  EXPECT_TRUE(registry.Types().empty());
}

TEST(PluginLoaderTest, ToolchainMismatchIsRefusedBeforeRegistering) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libbuild_mismatch_plugin.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("was built with another toolchain (plugin: 'compiler "
                        "other 1.0; c++ 201703L', this binary: '" +
                        std::string(kPluginBuildId) + "')"));
  EXPECT_TRUE(registry.Types().empty());
}

TEST(PluginLoaderTest, TakenTypeNameIsAlreadyExists) {
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("toy",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return absl::UnavailableError("linked-in toy");
                            })
                  .ok());
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libtoy_plugin.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("(toy) failed to register its backends: a backend for "
                        "device type 'toy' is already registered"));
  EXPECT_THAT(Message(loaded.status()), HasSubstr("named twice"));
}

TEST(PluginLoaderTest, LoadingOnePluginTwiceIsAlreadyExists) {
  BackendRegistry registry;
  ASSERT_TRUE(LoadPlugin(Plugin("libtoy_plugin.so"), registry).ok());
  absl::StatusOr<LoadedPlugin> again =
      LoadPlugin(Plugin("libtoy_plugin.so"), registry);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Message(again.status()), HasSubstr("libtoy_plugin.so"));
}

TEST(PluginLoaderTest, FailingInitKeepsItsCodeAndNamesThePlugin) {
  BackendRegistry registry;
  absl::StatusOr<LoadedPlugin> loaded =
      LoadPlugin(Plugin("libinit_fails_plugin.so"), registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("libinit_fails_plugin.so"));
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr("(init_fails) failed to register its backends: the toy "
                        "accelerator is switched off"));
  EXPECT_TRUE(registry.Types().empty());
}

// A fresh folder under TEST_TMPDIR holding copies of the named test plugins.
std::string FolderWith(const std::string& name,
                       const std::vector<std::string>& files) {
  const fs::path dir = fs::path(TempDir()) / name;
  fs::create_directories(dir);
  for (const std::string& file : files) {
    fs::copy_file(Plugin(file), dir / file,
                  fs::copy_options::overwrite_existing);
  }
  return dir.string();
}

TEST(PluginLoaderTest, PathListLoadsFilesAndFoldersSkippingNonPlugins) {
  const std::string dir =
      FolderWith("plugins_ok", {"libno_entry_point.so", "libtoy_plugin.so"});
  BackendRegistry registry;
  // Empty entries are ignored; the folder's non-plugin .so is skipped.
  absl::StatusOr<std::vector<LoadedPlugin>> loaded =
      LoadPluginsFromPathList("::" + dir + ":", registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].name, "toy");
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"toy"});
}

TEST(PluginLoaderTest, PathListStopsAtABrokenPluginInAFolder) {
  const std::string dir = FolderWith("plugins_bad", {"libabi_mismatch_plugin.so"});
  BackendRegistry registry;
  absl::StatusOr<std::vector<LoadedPlugin>> loaded =
      LoadPluginsFromPathList(dir, registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(loaded.status()),
              HasSubstr(dir + "/libabi_mismatch_plugin.so"));
}

TEST(PluginLoaderTest, PathListNamesAMissingEntry) {
  BackendRegistry registry;
  absl::StatusOr<std::vector<LoadedPlugin>> loaded = LoadPluginsFromPathList(
      Plugin("libtoy_plugin.so") + ":/no/such/dir", registry);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(loaded.status()), HasSubstr("'/no/such/dir'"));
}

TEST(PluginLoaderTest, EnvironmentVariable) {
  BackendRegistry registry;
  unsetenv(kPluginPathEnv);
  absl::StatusOr<std::vector<LoadedPlugin>> none = LoadPluginsFromEnv(registry);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());

  setenv(kPluginPathEnv, Plugin("libtoy_plugin.so").c_str(), 1);
  absl::StatusOr<std::vector<LoadedPlugin>> loaded =
      LoadPluginsFromEnv(registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"toy"});

  setenv(kPluginPathEnv, "/no/such/plugin.so", 1);
  absl::StatusOr<std::vector<LoadedPlugin>> missing =
      LoadPluginsFromEnv(registry);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()),
              HasSubstr("SWITCHYARD_PLUGIN_PATH: plugin '/no/such/plugin.so'"));
  unsetenv(kPluginPathEnv);
}

}  // namespace
}  // namespace switchyard
