// Backend conformance: every op (tests/conformance_cases.cc: several
// attribute combinations each, small shapes, seeded random inputs) on every
// device of every registered backend, against the reference backend on
// ref:0 with a per-op tolerance. A backend with no device is one skipped
// case per op, with its reason; an op a backend does not support is skipped
// with the backend's reason.
//
// The backends are those linked into this test (tests/BUILD): cpu and ref,
// and cuda where its target is added there.

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "gtest/gtest.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

constexpr char kOracle[] = "ref:0";

// Every device of every registered backend; "type:0" for a backend without
// devices, so that its cases are reported as skipped with the reason.
std::vector<std::string> DeviceParams() {
  BackendRegistry& registry = BackendRegistry::Global();
  std::vector<std::string> params;
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    const int count = backend.ok() ? (*backend)->DeviceCount() : 0;
    if (count == 0) params.push_back(absl::StrCat(type, ":0"));
    for (int i = 0; i < count; ++i) params.push_back(absl::StrCat(type, ":", i));
  }
  return params;
}

class ConformanceTest
    : public ::testing::TestWithParam<std::tuple<ConformanceCase, std::string>> {};

TEST_P(ConformanceTest, MatchesTheReferenceBackend) {
  const auto& [c, device_name] = GetParam();
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(device_name);
  absl::StatusOr<BackendDevice*> backend_device = registry.GetDevice(device);
  if (!backend_device.ok()) {
    GTEST_SKIP() << device_name << " is not available: "
                 << backend_device.status().message();
  }

  absl::StatusOr<OpResult> want = RunCase(c, *Device::Parse(kOracle), registry);
  ASSERT_TRUE(want.ok()) << "the reference backend failed on " << c.name
                         << ": " << want.status();
  absl::StatusOr<OpResult> got = RunCase(c, device, registry);
  if (got.status().code() == absl::StatusCode::kUnimplemented) {
    GTEST_SKIP() << device_name << " does not run " << c.op << ": "
                 << got.status().message();
  }
  ASSERT_TRUE(got.ok()) << got.status();
  const std::string mismatch = CompareResults(*got, *want, ToleranceFor(c.op));
  EXPECT_TRUE(mismatch.empty())
      << c.op << " case " << c.name << " on " << device_name << ": " << mismatch;
}

std::string TestName(
    const ::testing::TestParamInfo<std::tuple<ConformanceCase, std::string>>& info) {
  std::string name = absl::StrCat(std::get<0>(info.param).name, "_on_",
                                  std::get<1>(info.param));
  std::replace(name.begin(), name.end(), ':', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOpsAllDevices, ConformanceTest,
                         ::testing::Combine(::testing::ValuesIn(ConformanceCases()),
                                            ::testing::ValuesIn(DeviceParams())),
                         TestName);

// A new op must come with conformance cases.
TEST(ConformanceSuiteTest, CoversEveryOp) {
  std::set<std::string> covered;
  for (const ConformanceCase& c : ConformanceCases()) covered.insert(c.op);
  for (const std::string& op : OpRegistry::Global().Names()) {
    if (op == "copy") continue;  // core's own, tested by placement
    EXPECT_EQ(covered.count(op), 1u) << "no conformance case for op '" << op
                                     << "'; add some to tests/conformance_cases.cc";
  }
}

// The cpu and reference backends run every op: a skip there would hide a gap.
TEST(ConformanceSuiteTest, CpuAndReferenceSupportEveryOp) {
  BackendRegistry& registry = BackendRegistry::Global();
  for (const char* name : {"cpu:0", "ref:0", "ref:1"}) {
    BackendDevice* device = *registry.GetDevice(*Device::Parse(name));
    for (const std::string& op : OpRegistry::Global().Names()) {
      if (op == "copy") continue;
      Graph graph;
      Node node;
      node.name = "probe/" + op;
      node.op = op;
      EXPECT_TRUE(device->Supports(node, graph).ok())
          << name << ": " << device->Supports(node, graph);
    }
  }
}

}  // namespace
}  // namespace conformance
}  // namespace switchyard
