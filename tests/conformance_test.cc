// Backend conformance: every (op, dtype) each backend registers a kernel for
// (its KernelRegistry's Keys(); tests/conformance_cases.cc has several
// attribute combinations each, small shapes, seeded random inputs), on every
// device of that backend, against the reference backend on ref:0 with a
// per-op tolerance; and the fusable groups (conv2d+relu, linear+relu), which
// a backend may claim as one partition, against the reference's two
// unfused nodes. A backend with no device is one skipped case per kernel,
// with its reason.
//
// The backends are those linked into this test (tests/BUILD): cpu, ref and
// cuda (on a machine without a GPU its cases skip with the backend's reason).

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "gtest/gtest.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

constexpr char kOracle[] = "ref:0";

using KernelKeys = std::vector<std::pair<std::string, DType>>;

// The kernels each linked backend registers, by device type.
const std::map<std::string, std::function<KernelKeys()>>& KeysByBackend() {
  static const auto* keys =
      new std::map<std::string, std::function<KernelKeys()>>{
          {"cpu", [] { return cpu::CpuKernels().Keys(); }},
          {"cuda", &cuda::CudaKernelKeys},
          {"ref", &reference::ReferenceKernelKeys},
      };
  return *keys;
}

bool Has(const KernelKeys& keys, const std::string& op, DType dtype) {
  return std::find(keys.begin(), keys.end(), std::make_pair(op, dtype)) !=
         keys.end();
}

// Whether a backend with `keys` runs the case (both nodes of a group).
bool Runs(const KernelKeys& keys, const ConformanceCase& c) {
  return Has(keys, c.op, c.dtype) &&
         (!c.then_relu || Has(keys, "relu", c.dtype));
}

// Whether op `op` takes operands of `dtype` at all (its schema): a kernel
// registered for a dtype the op refuses can never run.
bool OpTakes(const std::string& op, DType dtype) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
  if (!def.ok()) return false;
  const std::vector<DType>& dtypes = (*def)->schema().dtypes;
  return dtypes.empty() ||
         std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
}

struct Param {
  ConformanceCase c;
  std::string device;
};

// Every case a backend registers the kernels of, on each of its devices
// ("type:0" for a backend without devices, so that its cases are reported
// as skipped with the reason). A backend whose kernels this test cannot
// list gets every case (and skips what it does not support).
std::vector<Param> Params() {
  BackendRegistry& registry = BackendRegistry::Global();
  std::vector<Param> params;
  for (const std::string& type : registry.Types()) {
    absl::StatusOr<Backend*> backend = registry.GetBackend(type);
    const int count = backend.ok() ? (*backend)->DeviceCount() : 0;
    std::vector<std::string> devices;
    if (count == 0) devices.push_back(absl::StrCat(type, ":0"));
    for (int i = 0; i < count; ++i)
      devices.push_back(absl::StrCat(type, ":", i));
    auto keys = KeysByBackend().find(type);
    const bool listed =
        keys != KeysByBackend().end() && !keys->second().empty();
    for (const ConformanceCase& c : ConformanceCases()) {
      if (listed && !Runs(keys->second(), c)) continue;
      for (const std::string& device : devices) params.push_back({c, device});
    }
  }
  return params;
}

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.c.name << " on " << p.device;
}

class ConformanceTest : public ::testing::TestWithParam<Param> {};

TEST_P(ConformanceTest, MatchesTheReferenceBackend) {
  const ConformanceCase& c = GetParam().c;
  const std::string& device_name = GetParam().device;
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(device_name);
  absl::StatusOr<BackendDevice*> backend_device = registry.GetDevice(device);
  if (!backend_device.ok()) {
    GTEST_SKIP() << device_name << " is not available: "
                 << backend_device.status().message();
  }

  absl::StatusOr<OpResult> want =
      ReferenceResult(c, registry, reference::ReferenceKernelKeys());
  ASSERT_TRUE(want.ok()) << "the reference backend failed on " << c.name
                         << ": " << want.status();
  EXPECT_TRUE(want->partitions.empty()) << "the reference fuses nothing";
  absl::StatusOr<OpResult> got = RunCase(c, device, registry);
  if (got.status().code() == absl::StatusCode::kUnimplemented) {
    GTEST_SKIP() << device_name << " does not run " << c.name << ": "
                 << got.status().message();
  }
  ASSERT_TRUE(got.ok()) << got.status();
  const std::string mismatch = CompareResults(*got, *want, ToleranceFor(c));
  EXPECT_TRUE(mismatch.empty())
      << c.op << " (" << DTypeName(c.dtype) << ") case " << c.name << " on "
      << device_name
      << (got->partitions.empty()
              ? ""
              : absl::StrCat(" (fused: ", absl::StrJoin(got->partitions, ", "),
                             ")"))
      << ": " << mismatch;
}

std::string TestName(const ::testing::TestParamInfo<Param>& info) {
  std::string name = absl::StrCat(info.param.c.name, "_on_", info.param.device);
  std::replace(name.begin(), name.end(), ':', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllKernelsAllDevices, ConformanceTest,
                         ::testing::ValuesIn(Params()), TestName);

// The guards: a gap in the cases must fail here, not hide as a skip.

// Every op has cases.
TEST(ConformanceSuiteTest, CoversEveryOp) {
  std::set<std::string> covered;
  for (const ConformanceCase& c : ConformanceCases()) covered.insert(c.op);
  for (const std::string& op : OpRegistry::Global().Names()) {
    if (op == "copy") continue;  // core's own, tested by placement
    EXPECT_EQ(covered.count(op), 1u) << "no conformance case for op '" << op
                                     << "'; add some to tests/conformance_cases.cc";
  }
}

// Every kernel any linked backend registers has cases, in its dtype.
TEST(ConformanceSuiteTest, CoversEveryRegisteredKernel) {
  std::set<std::pair<std::string, DType>> covered;
  for (const ConformanceCase& c : ConformanceCases()) {
    if (!c.then_relu) covered.insert({c.op, c.dtype});
  }
  for (const auto& [type, keys] : KeysByBackend()) {
    for (const auto& [op, dtype] : keys()) {
      // A kernel for a dtype the op's schema refuses can never run (shape
      // inference stops such a graph first), so there is nothing to test.
      if (!OpTakes(op, dtype)) continue;
      EXPECT_EQ(covered.count({op, dtype}), 1u)
          << "the " << type << " backend registers " << op << " ("
          << DTypeName(dtype) << ") but no conformance case runs it; add one "
          << "to tests/conformance_cases.cc";
    }
  }
}

// The dtype the probes below key an op's kernel by: float32, or the first
// of its schema's dtypes when it takes no float32 first operand (where: a
// bool condition).
DType ProbeDType(const std::string& op) {
  if (OpTakes(op, DType::kFloat32)) return DType::kFloat32;
  return (*OpRegistry::Global().Find(op))->schema().dtypes.front();
}

// The oracle has every op in float32 (other dtypes it lacks are compared
// with its float32 result rounded to the dtype).
TEST(ConformanceSuiteTest, TheReferenceRunsEveryOpInFloat32) {
  const KernelKeys keys = reference::ReferenceKernelKeys();
  for (const std::string& op : OpRegistry::Global().Names()) {
    if (op == "copy") continue;
    EXPECT_TRUE(Has(keys, op, ProbeDType(op))) << op;
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
      if (ProbeDType(op) != DType::kFloat32) {  // the kernel's key operand
        node.inputs.push_back(graph.AddInput("probe", Shape({1}),
                                             Device::Cpu(), ProbeDType(op)));
      }
      EXPECT_TRUE(device->Supports(node, graph).ok())
          << name << ": " << device->Supports(node, graph);
    }
  }
}

// The CPU claims the fusable groups through the normal compile path, so the
// fused cases above compare its fused kernels, not its unfused ones.
TEST(ConformanceSuiteTest, TheCpuFusesTheFusableGroups) {
  BackendRegistry& registry = BackendRegistry::Global();
  int groups = 0;
  for (const ConformanceCase& c : ConformanceCases()) {
    if (!c.then_relu) continue;
    ++groups;
    absl::StatusOr<OpResult> got = RunCase(c, Device::Cpu(), registry);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
    EXPECT_EQ(got->partitions, std::vector<std::string>{c.op + "+relu"})
        << c.name;
  }
  EXPECT_GE(groups, 4);
}

// The same on every CUDA device (cuDNN's fused bias and activation,
// cuBLASLt's RELU_BIAS epilogue); needs a GPU.
TEST(ConformanceSuiteTest, TheCudaDevicesFuseTheFusableGroups) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<Backend*> backend = registry.GetBackend("cuda");
  ASSERT_TRUE(backend.ok()) << backend.status();
  if ((*backend)->DeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << (*backend)->UnavailableReason();
  }
  for (int i = 0; i < (*backend)->DeviceCount(); ++i) {
    const Device device = (*backend)->GetDevice(i).device();
    for (const ConformanceCase& c : ConformanceCases()) {
      if (!c.then_relu) continue;
      absl::StatusOr<OpResult> got = RunCase(c, device, registry);
      ASSERT_TRUE(got.ok())
          << c.name << " on " << device << ": " << got.status();
      EXPECT_EQ(got->partitions, std::vector<std::string>{c.op + "+relu"})
          << c.name << " on " << device;
    }
  }
}

}  // namespace
}  // namespace conformance
}  // namespace switchyard
