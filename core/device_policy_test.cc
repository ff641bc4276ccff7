// The device policies over registries of fake backends named like the real
// ones: the ranking, the fallbacks and the reasons they give.

#include "core/device_policy.h"

#include "absl/strings/match.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using testing::MakeHostBackend;

// A registry with `types`, each with `count` devices (0: registered, none).
void Add(BackendRegistry& registry, const std::string& type, int count) {
  ASSERT_TRUE(registry.Register(type, [=] { return MakeHostBackend(type, count); }).ok());
}

TEST(DevicePolicyTest, ParsesTheFourPoliciesAndNamesThemOnError) {
  EXPECT_EQ(*ParseDevicePolicy("fastest"), DevicePolicy::kFastest);
  EXPECT_EQ(*ParseDevicePolicy("CPU"), DevicePolicy::kPreferCpu);
  EXPECT_EQ(*ParseDevicePolicy("gpu"), DevicePolicy::kPreferGpu);
  EXPECT_EQ(*ParseDevicePolicy("low_power"), DevicePolicy::kLowPower);
  EXPECT_EQ(DevicePolicyName(*ParseDevicePolicy("low-power")), "low-power");
  absl::StatusOr<DevicePolicy> bad = ParseDevicePolicy("fast");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "'fast'")) << bad.status();
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "fastest, cpu, gpu, low-power"));
}

TEST(DevicePolicyTest, FastestTakesTheGpuThenOneDnnThenEigen) {
  BackendRegistry all;
  Add(all, "cpu", 1);
  Add(all, "dnnl", 1);
  Add(all, "cuda", 2);
  EXPECT_EQ(ChooseDevice(all, DevicePolicy::kFastest)->device.ToString(), "cuda:0");

  BackendRegistry no_gpu;
  Add(no_gpu, "cpu", 1);
  Add(no_gpu, "dnnl", 1);
  Add(no_gpu, "cuda", 0);
  absl::StatusOr<PolicyChoice> c = ChooseDevice(no_gpu, DevicePolicy::kFastest);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->device.ToString(), "dnnl:0");
  EXPECT_EQ(c->threads, 0);
  // Why not the GPU is part of the reason.
  EXPECT_TRUE(absl::StrContains(c->reason, "passed over cuda (no device)")) << c->reason;
  EXPECT_TRUE(absl::StrContains(c->reason, "device policy fastest")) << c->reason;

  BackendRegistry eigen_only;
  Add(eigen_only, "cpu", 1);
  c = ChooseDevice(eigen_only, DevicePolicy::kFastest);
  EXPECT_EQ(c->device.ToString(), "cpu:0");
  EXPECT_TRUE(absl::StrContains(c->reason, "dnnl (not loaded)")) << c->reason;
}

TEST(DevicePolicyTest, PreferCpuPassesOverTheGpuAndLowPowerUsesOneThread) {
  BackendRegistry all;
  Add(all, "cpu", 1);
  Add(all, "dnnl", 1);
  Add(all, "cuda", 1);
  EXPECT_EQ(ChooseDevice(all, DevicePolicy::kPreferCpu)->device.ToString(), "dnnl:0");
  EXPECT_EQ(ChooseDevice(all, DevicePolicy::kPreferGpu)->device.ToString(), "cuda:0");
  absl::StatusOr<PolicyChoice> low = ChooseDevice(all, DevicePolicy::kLowPower);
  EXPECT_EQ(low->device.ToString(), "dnnl:0");
  EXPECT_EQ(low->threads, 1);
  EXPECT_TRUE(absl::StrContains(low->reason, "one thread")) << low->reason;
}

TEST(DevicePolicyTest, UnrankedTypesAreNeverChosenAndNothingRankedIsAnError) {
  BackendRegistry other;
  Add(other, "ref", 1);
  Add(other, "toy", 1);
  absl::StatusOr<PolicyChoice> c = ChooseDevice(other, DevicePolicy::kFastest);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(c.status().message(), "--device")) << c.status();
}

}  // namespace
}  // namespace switchyard
