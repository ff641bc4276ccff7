// A dynamically quantized linear layer on dnnl:0, as ONNX Runtime's
// quantizer writes it: dynamic_quantize_linear, matmul_integer, the cast of
// the int32 sums to float, the scale product (x's scale times the weights')
// between the cast and the mul that applies it, the bias add and a gelu.
// dnnl:0 runs the four nodes after the quantization as one int8 matmul with
// post-ops (dnnl_fusion.h: dequantize); the results match the reference
// backend's.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_partition.h"
#include "backends/dnnl/dnnl_support.h"
#include "backends/dnnl/dnnl_test_devices.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/partition.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace onednn {
namespace {

using testing::Dnnl;
using testing::Random;
using testing::Ref;
using testing::Registry;

constexpr int64_t kK = 64;
constexpr int64_t kN = 48;

struct Layer {
  bool per_column_scales = false;
  bool bias = true;
  bool gelu = true;
};

struct Built {
  Graph graph;
  Tensor input;
};

Built MakeLayer(BackendDevice& device, const Layer& layer) {
  std::mt19937 rng(11);
  Built b;
  Graph& g = b.graph;
  const Shape in({2, 5, kK});
  b.input = *Tensor::FromVector(in, Random(in.num_elements(), rng, 3.0f), device);
  const ValueId x = g.AddInput("x", in, device.device());
  std::vector<int8_t> w(kK * kN);
  std::uniform_int_distribution<int> weight(-127, 127);
  for (int8_t& v : w) v = static_cast<int8_t>(weight(rng));
  const ValueId w_id = g.AddConstant(
      "w", *Tensor::FromValues<int8_t>(Shape({kK, kN}), w, device));
  const ValueId w_zp = g.AddConstant(
      "w_zp", *Tensor::FromValues<int8_t>(Shape({}), std::vector<int8_t>{0}, device));
  const Shape scale_shape = layer.per_column_scales ? Shape({kN}) : Shape({});
  std::vector<float> scales = Random(scale_shape.num_elements(), rng, 0.01f);
  for (float& s : scales) s += 0.015f;
  const ValueId w_scale =
      g.AddConstant("w_scale", *Tensor::FromVector(scale_shape, scales, device));

  const std::vector<ValueId> q =
      g.AddNodeWithOutputs("dynamic_quantize_linear", "dq", {x}, AttrMap(), 3);
  const ValueId sums = g.AddNode("matmul_integer", "mm", {q[0], w_id, q[2], w_zp}, AttrMap());
  AttrMap to_float;
  to_float.Set("to", std::string("float32"));
  const ValueId as_float = g.AddNode("cast", "mm_cast", {sums}, to_float);
  const ValueId scale = g.AddNode("mul", "scales", {q[1], w_scale}, AttrMap());
  ValueId y = g.AddNode("mul", "mm_scale", {as_float, scale}, AttrMap());
  if (layer.bias) {
    const ValueId bias = g.AddConstant(
        "b", *Tensor::FromVector(Shape({kN}), Random(kN, rng, 0.5f), device));
    y = g.AddNode("add", "mm_bias", {bias, y}, AttrMap());
  }
  if (layer.gelu) y = g.AddNode("gelu", "act", {y}, AttrMap());
  g.AddOutput(y);
  return b;
}

struct Ran {
  std::vector<float> output;
  std::vector<Partition> partitions;
  std::vector<std::string> steps;
};

Ran RunLayer(BackendDevice& device, const Layer& layer) {
  Built b = MakeLayer(device, layer);
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(b.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  Ran ran;
  if (!plan.ok()) return ran;
  ran.partitions = (*plan)->partitions();
  if (!ran.partitions.empty()) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        device.CreatePartitionKernel(ran.partitions[0], (*plan)->graph());
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (kernel.ok()) ran.steps = KernelSteps(**kernel);
  }
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({b.input});
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) ran.output = *(*out)[0].ToVector();
  return ran;
}

bool HasVnni() {
  Node probe;
  probe.name = "probe";
  return CheckExactInt8Products(probe).ok();
}

class DequantizedMatmulTest : public ::testing::TestWithParam<Layer> {};

TEST_P(DequantizedMatmulTest, OneInt8MatmulMatchesTheReference) {
  if (!HasVnni()) GTEST_SKIP() << "int8 products stay on the CPU backend without VNNI";
  const Layer layer = GetParam();
  const Ran got = RunLayer(Dnnl(), layer);
  const Ran want = RunLayer(Ref(), layer);
  ASSERT_EQ(got.output.size(), want.output.size());
  ASSERT_FALSE(got.output.empty());
  for (size_t i = 0; i < got.output.size(); ++i) {
    // The same float operations in the same order; gelu's erf is oneDNN's.
    ASSERT_NEAR(got.output[i], want.output[i], 1e-5f + 1e-5f * std::abs(want.output[i]))
        << "element " << i;
  }
  ASSERT_EQ(got.partitions.size(), 1u);
  std::string fused = "matmul_integer+cast+mul";
  if (layer.bias) fused += "+add";
  if (layer.gelu) fused += "+gelu";
  EXPECT_TRUE(absl::StrContains(got.partitions[0].name, fused)) << got.partitions[0].name;
  // No cast or bias add of its own: the product writes float.
  for (const std::string& step : got.steps) {
    EXPECT_FALSE(absl::StartsWith(step, "mm_cast")) << absl::StrJoin(got.steps, "\n");
    EXPECT_FALSE(absl::StartsWith(step, "mm_bias")) << absl::StrJoin(got.steps, "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Forms, DequantizedMatmulTest,
    ::testing::Values(Layer{false, true, true}, Layer{true, true, true},
                      Layer{false, false, false}, Layer{true, true, false}),
    [](const ::testing::TestParamInfo<Layer>& info) {
      return std::string(info.param.per_column_scales ? "per_column" : "per_tensor") +
             (info.param.bias ? "_bias" : "") + (info.param.gelu ? "_gelu" : "");
    });

}  // namespace
}  // namespace onednn
}  // namespace switchyard
