// The reference backend built as a plugin
// (//backends/reference:libswitchyard_ref_plugin.so), loaded at run time
// into a fresh registry: it registers type "ref" there, and every
// conformance case on its ref:0 and ref:1 matches the reference backend that
// is linked into this test (in BackendRegistry::Global()). The same code
// lives twice in this process, once in the plugin with every symbol local
// (its own kernel registry included): the two copies must not interfere.

#include <memory>
#include <string>
#include <vector>

#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/dtype.h"
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
  // The tensor knows its device is the plugin's: no registry to read it.
  EXPECT_EQ(&y->backend_device(), *registry.GetDevice(*Device::Parse("ref:1")));
  EXPECT_EQ(*y->ToVector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// A tensor of the plugin's ref:0 and one of the linked-in ref:0 have the
// same device name but different owners; copies between them go through the
// host, and each side's kernels refuse the other's buffers.
TEST(ReferencePluginTest, ThePluginsDevicesAreNotTheLinkedOnes) {
  const Device ref0 = *Device::Parse("ref:0");
  BackendDevice* plugin_ref0 = *PluginRegistry().GetDevice(ref0);
  BackendDevice* linked_ref0 = *BackendRegistry::Global().GetDevice(ref0);
  ASSERT_NE(plugin_ref0, linked_ref0);
  Tensor x = *Tensor::FromVector({3}, {1, 2, 3}, *plugin_ref0);
  Tensor y = *Tensor::Empty({3}, DType::kFloat32, *linked_ref0);
  ASSERT_TRUE(CopyTensor(x, y).ok());
  EXPECT_EQ(*y.ToVector(), (std::vector<float>{1, 2, 3}));
  std::vector<float> host(3);
  absl::Status foreign = plugin_ref0->CopyToHost(*y.buffer(), host.data(), 12);
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(foreign.message().find("from another backend's ref:0"),
            std::string::npos)
      << foreign;
}

// Options reach the plugin's backend through the host's registry.
TEST(ReferencePluginTest, ItsOptionsThroughTheHostRegistry) {
  BackendRegistry& registry = PluginRegistry();
  absl::StatusOr<std::string> devices = registry.GetOption("ref", "devices");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_EQ(*devices, std::to_string(reference::kDefaultRefDevices));
  absl::Status unknown = registry.SetOption("ref.threads=4");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("its options: devices"), std::string::npos)
      << unknown;
}

class PluginConformanceTest : public ::testing::TestWithParam<ConformanceCase> {};

TEST_P(PluginConformanceTest, MatchesTheLinkedInReference) {
  const ConformanceCase& c = GetParam();
  absl::StatusOr<OpResult> want = ReferenceResult(
      c, BackendRegistry::Global(), reference::ReferenceKernelKeys());
  ASSERT_TRUE(want.ok()) << want.status();
  for (const char* device : {"ref:0", "ref:1"}) {
    absl::StatusOr<OpResult> got =
        RunCase(c, *Device::Parse(device), PluginRegistry());
    if (got.status().code() == absl::StatusCode::kUnimplemented) {
      // A dtype the reference compares in float32 (it has no kernel).
      GTEST_SKIP() << device << " of the plugin does not run " << c.name << ": "
                   << got.status().message();
    }
    ASSERT_TRUE(got.ok()) << device << ": " << got.status();
    const std::string mismatch = CompareResults(*got, *want, ToleranceFor(c));
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
