// The reference backend built as a plugin
// (//backends/reference:libswitchyard_ref_plugin.so), loaded at run time
// into a fresh registry: it registers type "ref" there, and every
// conformance case on its ref:0 and ref:1 matches the reference backend that
// is linked into this test (in BackendRegistry::Global()). The same code
// lives twice in this process, once in the plugin with every symbol local:
// the two copies must not interfere.

#include <memory>
#include <string>
#include <vector>

#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/plugin_loader.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

constexpr char kPlugin[] = "backends/reference/libswitchyard_ref_plugin.so";

// The registry the plugin was loaded into; never destroyed, as plugins are
// never unloaded.
BackendRegistry& PluginRegistry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(kPlugin, *r);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return r;
  }();
  return *registry;
}

TEST(ReferencePluginTest, RegistersTypeRefWithItsDevices) {
  BackendRegistry& registry = PluginRegistry();
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"ref"});
  std::vector<Device> devices = registry.AvailableDevices();
  ASSERT_EQ(devices.size(), static_cast<size_t>(reference::kDefaultRefDevices));
  BackendDevice* ref1 = *registry.GetDevice(devices[1]);
  EXPECT_EQ(ref1->device().ToString(), "ref:1");
  EXPECT_NE(ref1->Info().name.find("reference backend"), std::string::npos);
}

TEST(ReferencePluginTest, CopiesBetweenThePluginsDevices) {
  BackendRegistry& registry = PluginRegistry();
  Tensor x = *Tensor::FromVector({2, 3}, {1, 2, 3, 4, 5, 6},
                                 *Device::Parse("ref:0"), registry);
  absl::StatusOr<Tensor> y = x.To(*Device::Parse("ref:1"), registry);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device().ToString(), "ref:1");
  EXPECT_NE(y->buffer()->data(), x.buffer()->data());
  EXPECT_EQ(*y->ToVector(registry), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

class PluginConformanceTest : public ::testing::TestWithParam<ConformanceCase> {};

TEST_P(PluginConformanceTest, MatchesTheLinkedInReference) {
  const ConformanceCase& c = GetParam();
  absl::StatusOr<OpResult> want =
      RunCase(c, *Device::Parse("ref:0"), BackendRegistry::Global());
  ASSERT_TRUE(want.ok()) << want.status();
  for (const char* device : {"ref:0", "ref:1"}) {
    absl::StatusOr<OpResult> got =
        RunCase(c, *Device::Parse(device), PluginRegistry());
    ASSERT_TRUE(got.ok()) << device << ": " << got.status();
    const std::string mismatch = CompareResults(*got, *want, ToleranceFor(c.op));
    EXPECT_TRUE(mismatch.empty()) << c.name << " on the plugin's " << device
                                  << ": " << mismatch;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllOps, PluginConformanceTest, ::testing::ValuesIn(ConformanceCases()),
    [](const ::testing::TestParamInfo<ConformanceCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace conformance
}  // namespace switchyard
