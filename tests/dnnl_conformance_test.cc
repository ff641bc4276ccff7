// The oneDNN backend plugin (//backends/dnnl:libswitchyard_dnnl_plugin.so),
// loaded at run time into a fresh registry as a user would load it, against
// the reference backend linked into this test: every conformance case on
// dnnl:0 (a case is one node, or a node and the relu it may fuse, so each
// runs as a partition of one or two nodes with reorders from and to plain
// NCHW at its edges).
//
// Cases of ops the device does not run, of other dtypes, or that hit one of
// its documented limits (kDocumentedRefusals) skip with the device's own
// reason; any other refusal of a float32 case of a supported op fails.
//
// Tolerances: the suite's per-op table (tests/conformance_cases.cc) holds
// for oneDNN's float32 math unchanged: exact for relu, add, max_pool2d and
// the reinterpretations (flatten, reshape, dropout); 1e-6 + 1e-5|ref| for
// pooling averages and softmax; 1e-4 + 1e-4|ref| for conv2d, linear and
// batch_norm (blocked JIT kernels sum in another order than the
// reference's double accumulation). The suite also runs with oneDNN capped
// at AVX2 (dnnl_conformance_avx2_test): the kernels an AVX2-only CPU gets.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
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

constexpr char kPlugin[] = "backends/dnnl/libswitchyard_dnnl_plugin.so";

// The ops dnnl:0 runs (backends/dnnl/dnnl_op_table.cc).
const std::vector<std::string>& DnnlOps() {
  static const auto* ops = new std::vector<std::string>{
      "abs",        "adaptive_avg_pool2d", "add",        "avg_pool2d",
      "batch_norm", "clip",                "concat",     "conv2d",
      "div",        "dropout",             "flatten",    "gelu",
      "hard_swish", "layer_norm",          "leaky_relu", "linear",
      "matmul",     "max_pool2d",          "mul",        "pad",
      "dequantize_linear", "quantize_linear", "qlinear_add", "qlinear_conv",
      "matmul_integer", "cast", "dynamic_quantize_linear",
      "reduce_mean", "relu",               "reshape",    "sigmoid",
      "slice",      "softmax",             "sqrt",       "sub",
      "tanh",       "transpose"};
  return *ops;
}

// The documented limits of dnnl:0 (backends/dnnl/dnnl_support.cc and the
// per-op checks its op table lists): a float32 case of one of its ops may
// be refused only with one of these reasons; any other refusal is a
// failure.
constexpr const char* kDocumentedRefusals[] = {
    "no broadcasting",                      // add of two different shapes
    "has rank 0",                           // scalars
    "has rank",                             // past the device's ranks
    "is empty",                             // zero-element tensors
    "adaptive windows of different sizes",  // e.g. 3x2 from 7x5
    "overhangs the padding",                // avg_pool2d ceil + include_pad
    "not both",                             // binary: both operands broadcast
    "is not commutative",                   // sub/div with a broadcast first operand
    "1-D operand",                          // matmul: matrix-vector products
    "slices forward only",                  // slice with a negative step
    "pads only with a constant",            // pad: reflect and edge modes
    "only adds",                            // pad: negative pads (crops)
    "min <= max only",                      // clip with crossed bounds
    "does not fit oneDNN's float epsilon",  // layer_norm
    "(exact conversions)",                  // cast: integers to wider types only
    "(no VNNI)",                            // int8 products on an AVX2-capped run
};

bool DocumentedRefusal(const absl::Status& status) {
  for (const char* reason : kDocumentedRefusals) {
    if (absl::StrContains(status.message(), reason)) return true;
  }
  return false;
}

// The registry the plugin was loaded into; never destroyed, as plugins are
// never unloaded.
BackendRegistry& PluginRegistry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(kPlugin, *r);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    // The thread count every partition of this test is created with.
    EXPECT_TRUE(r->SetOption("dnnl.threads=2").ok());
    return r;
  }();
  return *registry;
}

TEST(DnnlPluginTest, RegistersTypeDnnlWithOneDevice) {
  BackendRegistry& registry = PluginRegistry();
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"dnnl"});
  std::vector<Device> devices = registry.AvailableDevices();
  ASSERT_EQ(devices.size(), 1u);
  BackendDevice* dnnl0 = *registry.GetDevice(devices[0]);
  EXPECT_EQ(dnnl0->device().ToString(), "dnnl:0");
  const DeviceInfo info = dnnl0->Info();
  EXPECT_TRUE(absl::StrContains(info.name, "oneDNN 2.")) << info.name;
  EXPECT_TRUE(absl::StrContains(info.name, "ISA ")) << info.name;
}

TEST(DnnlPluginTest, ItsOptionsThroughTheHostRegistry) {
  BackendRegistry& registry = PluginRegistry();
  EXPECT_EQ(*registry.GetOption("dnnl", "threads"), "2");
  absl::StatusOr<std::string> isa = registry.GetOption("dnnl", "isa");
  ASSERT_TRUE(isa.ok()) << isa.status();
  EXPECT_FALSE(isa->empty());
  absl::Status unknown = registry.SetOption("dnnl.devices=2");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(unknown.message(), "its options: threads"))
      << unknown;
}

class DnnlConformanceTest : public ::testing::TestWithParam<ConformanceCase> {};

TEST_P(DnnlConformanceTest, MatchesTheReference) {
  const ConformanceCase& c = GetParam();
  absl::StatusOr<OpResult> got =
      RunCase(c, *Device::Parse("dnnl:0"), PluginRegistry());
  if (got.status().code() == absl::StatusCode::kUnimplemented) {
    const bool supported_op =
        std::find(DnnlOps().begin(), DnnlOps().end(), c.op) != DnnlOps().end();
    if (supported_op && c.dtype == DType::kFloat32 &&
        !DocumentedRefusal(got.status())) {
      FAIL() << "dnnl:0 runs op " << c.op << " but refused case " << c.name
             << ": " << got.status().message();
    }
    GTEST_SKIP() << "dnnl:0 does not run " << c.name << ": "
                 << got.status().message();
  }
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<OpResult> want = ReferenceResult(
      c, BackendRegistry::Global(), reference::ReferenceKernelKeys());
  ASSERT_TRUE(want.ok()) << want.status();
  const std::string mismatch = CompareResults(*got, *want, ToleranceFor(c));
  EXPECT_TRUE(mismatch.empty()) << c.name << " on dnnl:0: " << mismatch;
  // A case with a relu after the op runs as one fused partition.
  if (c.then_relu) {
    ASSERT_EQ(got->partitions.size(), 1u) << c.name;
    EXPECT_EQ(got->partitions[0], c.op + "+relu");
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllOps, DnnlConformanceTest, ::testing::ValuesIn(ConformanceCases()),
    [](const ::testing::TestParamInfo<ConformanceCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace conformance
}  // namespace switchyard
